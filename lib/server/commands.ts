import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { canonicalId, isId, newId, problem, type CommandBody, type IncomingEvent } from "@/lib/core/protocol";
import { commands, events, runs } from "@/db/schema";
import type { Credential, WorkspaceCredential } from "./credentials";
import { canonicalJson, sha256 } from "./hash";
import type { IngestAnswer } from "./ingest/post-events";
import { bodyHash } from "./ingest/serialize";
import type { ChipsServices } from "./services";
import { log } from "./log";

const one = (r: { ok: true; bodies: string[]; created: boolean }): IngestAnswer => ({
  ok: true,
  status: r.created ? 201 : 200,
  body: r.bodies[0],
});

/**
 * A person's command to a run ([RUN1]): appended as `run.command` through the one writer,
 * so the transition rules see the run as it is. A retry with the same key is the stored
 * command (its ids are the server's, so they are left out of the comparison).
 */
export async function sendCommand(
  svc: Pick<ChipsServices, "writer">,
  cred: Credential,
  runIdRaw: string,
  body: CommandBody,
): Promise<IngestAnswer> {
  if (cred.kind !== "person")
    return { ok: false, problem: problem("forbidden", "commands come from people: use a session or a person token") };
  if (!isId("run", runIdRaw)) return { ok: false, problem: problem("run_not_found", "no such run in this workspace") };
  const runId = canonicalId(runIdRaw);
  const event = {
    v: 1,
    type: "run.command",
    id: newId("event"),
    workspace_id: cred.workspaceId,
    run_id: runId,
    command_id: newId("command"),
    command: body.command,
    ...(body.text !== undefined ? { text: body.text } : {}),
    idempotency_key: body.idempotency_key,
  } as IncomingEvent;
  const hash = sha256(
    canonicalJson({
      run_id: runId,
      command: body.command,
      text: body.text ?? null,
      key: body.idempotency_key,
      by: cred.subjectId,
    }),
  );
  const r = await svc.writer.submit(cred.workspaceId, {
    credential: cred,
    events: [event],
    hashes: [hash],
    pointers: [""],
  });
  return r.ok ? one(r) : r;
}

/** Chips itself appends an event (delivery receipts, a force-finish). */
export async function appendSystem(
  svc: Pick<ChipsServices, "writer">,
  workspaceId: string,
  event: Omit<IncomingEvent, "id" | "v" | "workspace_id"> & Record<string, unknown>,
) {
  const cred: Credential = { kind: "system", workspaceId, subjectId: "system" };
  const e = { v: 1, id: newId("event"), workspace_id: workspaceId, ...event } as IncomingEvent;
  return svc.writer.submit(workspaceId, { credential: cred, events: [e], hashes: [bodyHash(e, cred)], pointers: [""] });
}

/** The harness's connection received a command: its receipt moves to delivered (once). */
export async function markDelivered(
  svc: Pick<ChipsServices, "db" | "writer">,
  workspaceId: string,
  runId: string,
  commandId: string,
) {
  const [cmd] = await svc.db
    .select({ receipt: commands.receipt })
    .from(commands)
    .where(eq(commands.id, commandId))
    .limit(1);
  if (!cmd || cmd.receipt !== "accepted") return;
  const r = await appendSystem(svc, workspaceId, {
    type: "run.command_delivered",
    run_id: runId,
    command_id: commandId,
  } as never);
  if (!r.ok && r.problem.code !== "invalid_transition")
    log.warn({ commandId, problem: r.problem }, "delivery receipt not stored");
}

/** Force-finish a run whose harness is gone ([RUN1]): run.finished{failed, "harness lost"} by the system. */
export async function forceFinish(
  svc: Pick<ChipsServices, "db" | "presence" | "writer">,
  cred: Credential,
  runIdRaw: string,
): Promise<IngestAnswer> {
  if (cred.kind !== "person") return { ok: false, problem: problem("forbidden", "only people force-finish runs") };
  const runId = isId("run", runIdRaw) ? canonicalId(runIdRaw) : null;
  const run = runId ? (await svc.db.select().from(runs).where(eq(runs.id, runId)).limit(1))[0] : null;
  if (!run || run.workspaceId !== cred.workspaceId)
    return { ok: false, problem: problem("run_not_found", "no such run in this workspace") };
  if (run.state === "finished") return { ok: false, problem: problem("run_finished", "the run has finished") };
  if (run.harnessId && !svc.presence.isUnresponsive(run.harnessId)) {
    return {
      ok: false,
      problem: problem(
        "invalid_transition",
        "the harness is connected (or was, within the grace): send cancel instead",
      ),
    };
  }
  const r = await appendSystem(svc, run.workspaceId, {
    type: "run.finished",
    run_id: run.id,
    outcome: "failed",
    summary: "harness lost",
  } as never);
  return r.ok ? one(r) : r;
}

/** A harness without sockets: its runs' commands after a seq ([RT3]), each marked delivered. */
export async function pollCommands(
  svc: Pick<ChipsServices, "db" | "presence" | "writer">,
  cred: WorkspaceCredential,
  after: number,
  limit: number,
) {
  svc.presence.seen(cred.subjectId, cred.workspaceId);
  const rows = await svc.db
    .select({ seq: commands.seq, id: commands.id, runId: commands.runId, receipt: commands.receipt, body: events.body })
    .from(commands)
    .innerJoin(events, and(eq(events.workspaceId, commands.workspaceId), eq(events.seq, commands.seq)))
    .where(and(eq(commands.harnessId, cred.subjectId), gt(commands.seq, after)))
    .orderBy(asc(commands.seq))
    .limit(limit);
  for (const r of rows) if (r.receipt === "accepted") await markDelivered(svc, cred.workspaceId, r.runId, r.id);
  return { bodies: rows.map((r) => r.body), nextAfter: rows.length ? rows[rows.length - 1].seq : after };
}

/** Commands of a harness not yet acked, oldest first: what it gets on (re)connect ([RT3]). */
export async function openCommands(svc: Pick<ChipsServices, "db">, harnessId: string) {
  return svc.db
    .select({ id: commands.id, runId: commands.runId, workspaceId: commands.workspaceId, body: events.body })
    .from(commands)
    .innerJoin(events, and(eq(events.workspaceId, commands.workspaceId), eq(events.seq, commands.seq)))
    .where(and(eq(commands.harnessId, harnessId), inArray(commands.receipt, ["accepted", "delivered"])))
    .orderBy(asc(commands.seq))
    .limit(1000);
}
