import {
  canonicalId,
  isId,
  newId,
  problem,
  type AnswerBody,
  type IncomingEvent,
  type ShownVia,
} from "@/lib/core/protocol";
import { answerLabel, expiryNote, ifUnanswered } from "@/lib/core/projection/asks";
import { expiredAsks, getAsk } from "@/lib/server/queries/asks";
import { personName } from "@/lib/server/queries/people";
import type { Credential } from "./credentials";
import { appendSystem } from "./commands";
import { canonicalJson, sha256 } from "./hash";
import type { IngestAnswer } from "./ingest/post-events";
import type { ChipsServices } from "./services";
import { log } from "./log";

/**
 * A person's answer to an ask ([ASK2]): appended as `run.answered` through the one writer, so
 * the first answer wins however many arrive at once. A retry with the same key is the stored
 * answer. A refusal because someone answered first names them, so the second person is told who.
 */
export async function answerAsk(
  svc: Pick<ChipsServices, "db" | "writer">,
  cred: Credential,
  runIdRaw: string,
  askIdRaw: string,
  body: AnswerBody,
): Promise<IngestAnswer> {
  if (cred.kind !== "person")
    return { ok: false, problem: problem("forbidden", "answers come from people: use a session or a person token") };
  if (!isId("run", runIdRaw)) return { ok: false, problem: problem("run_not_found", "no such run in this workspace") };
  if (!isId("ask", askIdRaw)) return { ok: false, problem: problem("ask_not_found", "no such ask for this run") };
  const runId = canonicalId(runIdRaw);
  const askId = canonicalId(askIdRaw);
  const fields = {
    ...(body.decision !== undefined ? { decision: body.decision } : {}),
    ...(body.option_id !== undefined ? { option_id: body.option_id } : {}),
    ...(body.text !== undefined ? { text: body.text } : {}),
    ...(body.note !== undefined ? { note: body.note } : {}),
  };
  const event = {
    v: 1,
    type: "run.answered",
    id: newId("event"),
    workspace_id: cred.workspaceId,
    run_id: runId,
    ask_id: askId,
    ...fields,
    idempotency_key: body.idempotency_key,
  } as IncomingEvent;
  const hash = sha256(
    canonicalJson({ run_id: runId, ask_id: askId, ...fields, key: body.idempotency_key, by: cred.subjectId }),
  );
  const r = await svc.writer.submit(cred.workspaceId, {
    credential: cred,
    events: [event],
    hashes: [hash],
    pointers: [""],
  });
  if (r.ok) return { ok: true, status: r.created ? 201 : 200, body: r.bodies[0] };
  if (r.problem.code !== "ask_closed" || !r.problem.extensions?.answer) return r;
  return { ok: false, problem: await namedFirst(svc, cred.workspaceId, askId, r.problem) };
}

/** "Dana already answered Allow at 2026-…": the refusal of a second answer, with the first one's name and words. */
async function namedFirst(
  svc: Pick<ChipsServices, "db">,
  workspaceId: string,
  askId: string,
  p: Extract<IngestAnswer, { ok: false }>["problem"],
) {
  const ask = await getAsk(svc.db, workspaceId, askId);
  if (!ask?.answer) return p;
  const name = (await personName(svc.db, ask.answer.person_id)) ?? "someone";
  return {
    ...p,
    detail: `${name} already answered ${answerLabel(ask)} at ${ask.answer.at}`,
    extensions: { ...p.extensions, answered_by_name: name, answer_label: answerLabel(ask) },
  };
}

/**
 * [ASK6] Asks still waiting past their expiry are closed by Chips: the log says what applies
 * ([ASK8]: `deny` for a permission, unless the ask said its terminal or its agent decides)
 * even when the agent is gone and cannot say so itself. Every node sweeps; the writer stores one close per ask (the others are refused).
 */
async function closeExpiredAsks(svc: Pick<ChipsServices, "db" | "writer">): Promise<number> {
  const due = await expiredAsks(svc.db, new Date().toISOString(), 100);
  let closed = 0;
  for (const a of due) {
    const r = await appendSystem(svc, a.workspaceId, {
      type: "run.ask_closed",
      run_id: a.runId,
      ask_id: a.id,
      reason: "expired",
      // [ASK8] Deny is said applied only where the ask said so: a terminal's prompt or the
      // agent's own default is for the agent to name.
      ...(a.request.kind === "permission" && ifUnanswered(a) === "deny" ? { applied_default: "deny" } : {}),
      note: expiryNote(a),
    } as never);
    if (r.ok) closed++;
    else if (r.problem.code !== "ask_closed") log.warn({ askId: a.id, problem: r.problem }, "expired ask not closed");
  }
  return closed;
}

/** Sweep for expired asks every `everyMs` while the storage answers; stop with the answer. */
export function startAskExpiry(svc: Pick<ChipsServices, "db" | "storage" | "writer">, everyMs = 1000): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy || !svc.storage.available) return;
    busy = true;
    closeExpiredAsks(svc)
      .catch((e) => svc.storage.refuse(e, "closing expired asks"))
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Mark an ask shown ([ASK4]): it reached a person's open page or a webhook. Once: a refusal
 * means another node, another way or an answer came first, or the run ended.
 */
export async function markShown(
  svc: Pick<ChipsServices, "writer">,
  e: { workspace_id: string; run_id: string; ask_id: string },
  via: ShownVia,
) {
  const r = await appendSystem(svc, e.workspace_id, {
    type: "run.ask_shown",
    run_id: e.run_id,
    ask_id: e.ask_id,
    via,
  } as never);
  if (!r.ok && r.problem.code !== "invalid_transition" && r.problem.code !== "run_finished")
    log.warn({ askId: e.ask_id, problem: r.problem }, "ask not marked shown");
}
