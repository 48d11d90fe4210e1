import { and, eq } from "drizzle-orm";
import { events } from "@/db/schema";
import { newId, problem, type AnnotationBody, type IncomingEvent, type Run } from "@/lib/core/protocol";
import { ChangeSetPayload } from "@/lib/core/protocol/runner-contract";
import type { Credential } from "../credentials";
import { canonicalJson, sha256 } from "../hash";
import type { IngestAnswer } from "../ingest/post-events";
import type { ChipsServices } from "../services";

/**
 * A person's annotation of a run ([ANN1]–[ANN3]): checked against the run — an event target
 * must be one of the run's events, a diff target a file of its change-set — then appended
 * as `run.annotated` through the one writer, with that person as its actor. A retry with the
 * same key is the stored annotation.
 */
export async function annotate(
  svc: Pick<ChipsServices, "db" | "writer">,
  cred: Credential & { kind: "person" },
  run: Run,
  body: AnnotationBody,
): Promise<IngestAnswer> {
  const t = body.target;
  if (t.kind === "event") {
    const [hit] = await svc.db
      .select({ seq: events.seq })
      .from(events)
      .where(and(eq(events.workspaceId, run.workspace_id), eq(events.seq, t.seq), eq(events.runId, run.id)))
      .limit(1);
    if (!hit) return refuse("no event of this run has that seq", "/target/seq");
  }
  if (t.kind === "diff") {
    const cs = run.change_set ? ChangeSetPayload.safeParse(run.change_set).data : undefined;
    if (!cs) return refuse("this run has no change-set to annotate", "/target");
    if (!cs.files.some((f) => f.path === t.path))
      return refuse("no file of this run's change-set has that path", "/target/path");
  }
  const event = {
    v: 1,
    type: "run.annotated",
    id: newId("event"),
    workspace_id: run.workspace_id,
    run_id: run.id,
    annotation_id: newId("annotation"),
    target: t,
    ...(body.verdict ? { verdict: body.verdict } : {}),
    ...(body.comment ? { comment: body.comment } : {}),
    idempotency_key: body.idempotency_key,
  } as IncomingEvent;
  // Its ids are the server's: a retry is the same annotation when the person and what they said are.
  const hash = sha256(
    canonicalJson({
      run_id: run.id,
      target: t,
      verdict: body.verdict ?? null,
      comment: body.comment ?? null,
      key: body.idempotency_key,
      by: cred.subjectId,
    }),
  );
  const r = await svc.writer.submit(run.workspace_id, {
    credential: cred,
    events: [event],
    hashes: [hash],
    pointers: [""],
  });
  return r.ok ? { ok: true, status: r.created ? 201 : 200, body: r.bodies[0] } : r;
}

const refuse = (detail: string, pointer: string): IngestAnswer => ({
  ok: false,
  problem: problem("validation_failed", detail, [{ pointer, message: detail }]),
});
