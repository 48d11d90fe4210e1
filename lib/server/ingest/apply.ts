import { problem, type IncomingEvent, type ProblemError, type StoredEvent } from "@/lib/protocol";
import type { Credential } from "../credentials";
import type { BatchState } from "./batch-state";
import { applyCommandEvent, SETTLED_BY_FINISH } from "./commands";
import { projectRun } from "./projection";
import { judge, stamp } from "./rules";
import { bodyHash, serializeEvent } from "./serialize";
import type { IngestRequest } from "./writer";

/** An event accepted into the batch: stamped, serialized, with its space's previous seq. */
export interface Accepted {
  e: StoredEvent;
  body: string;
  hash: string;
  prevSeq: number | null;
}

export type RequestOutcome = { ok: true; answer: string[]; accepted: Accepted[] } | { ok: false; problem: ProblemError };

const systemOf = (workspaceId: string): Credential => ({ kind: "system", workspaceId, subjectId: "system" });

/**
 * Judge and apply one request's events against the batch state, all or nothing: a refusal
 * rolls back exactly this request. Events the rules derive (a cancel's run.finished) are
 * appended by the system right after the event that caused them.
 */
export function applyRequest(state: BatchState, req: IngestRequest, ts: string): RequestOutcome {
  state.beginRequest();
  const accepted: Accepted[] = [];
  const answer: string[] = [];
  for (let i = 0; i < req.events.length; i++) {
    const v = judge(state, req.credential, req.events[i], req.hashes[i], req.pointers[i]);
    if (v.kind === "refuse") {
      state.rollbackRequest();
      return { ok: false, problem: v.problem };
    }
    if (v.kind === "replay") {
      answer.push(v.body);
      continue;
    }
    const queue: { cred: Credential; event: IncomingEvent; hash: string }[] = [];
    const first = accept(state, req.credential, v.event, req.hashes[i], ts, queue);
    accepted.push(first);
    answer.push(first.body);
    while (queue.length) {
      const f = queue.shift()!;
      const fv = judge(state, f.cred, f.event, f.hash, "");
      if (fv.kind !== "accept") {
        state.rollbackRequest();
        return { ok: false, problem: problem("internal", `a derived event was refused: ${fv.kind === "refuse" ? fv.problem.detail : "replay"}`) };
      }
      accepted.push(accept(state, f.cred, fv.event, f.hash, ts, queue));
    }
  }
  state.commitRequest();
  return { ok: true, answer, accepted };
}

function accept(
  state: BatchState,
  cred: Credential,
  ev: IncomingEvent,
  hash: string,
  ts: string,
  followUps: { cred: Credential; event: IncomingEvent; hash: string }[],
): Accepted {
  let owner: string | undefined;
  if (ev.actor?.kind === "agent") {
    owner = state.agents.get(ev.actor.id) ?? cred.subjectId;
    if (!state.agents.has(ev.actor.id)) state.set(state.agents, ev.actor.id, owner);
  }
  const e = stamp(ev, cred, state.nextSeq(), ts, owner);
  const body = serializeEvent(e);
  const known = { hash, body, workspaceId: e.workspace_id };
  if (e.idempotency_key) state.set(state.byKey, e.idempotency_key, known);
  if (e.type === "runner.event") state.set(state.byRunnerSeq, `${e.run_id}:${e.sequence}`, known);
  state.set(state.byId, e.id, known);

  if (e.run_id) {
    const before = state.runs.get(e.run_id) ?? null;
    const harness = cred.kind === "harness" || cred.kind === "runner" ? cred.subjectId : null;
    let run = projectRun(before, e, before?.harnessId ?? harness);
    if (run && (e.type === "run.command" || e.type === "run.command_delivered" || e.type === "run.command_acked")) {
      const fx = applyCommandEvent(e as never, run, state.commands.get(e.command_id) ?? null, e.seq, ts, cred.kind === "person" ? cred.subjectId : null);
      run = fx.run;
      state.set(state.commands, fx.command.id, fx.command);
      if (e.type === "run.command_acked") state.set(state.ackBodies, e.command_id, body);
      const sys = systemOf(e.workspace_id);
      for (const f of fx.followUps) followUps.push({ cred: sys, event: f, hash: bodyHash(f, sys) });
    }
    if (run) state.set(state.runs, e.run_id, run);
    if (e.type === "run.finished") settleOpenCommands(state, e.run_id, ts);
  }
  let prevSeq: number | null = null;
  if (e.space_id) {
    prevSeq = state.spaceHeads.get(e.space_id)!;
    state.set(state.spaceHeads, e.space_id, e.seq);
  }
  return { e, body, hash, prevSeq };
}

/** A finished run's open commands can no longer be delivered or applied: settle them rejected. */
function settleOpenCommands(state: BatchState, runId: string, ts: string) {
  for (const [id, cmd] of state.commands) {
    if (!cmd || cmd.runId !== runId || (cmd.receipt !== "accepted" && cmd.receipt !== "delivered")) continue;
    state.set(state.commands, id, { ...cmd, receipt: "rejected", reason: SETTLED_BY_FINISH, ackedAt: ts });
    state.set(state.settled, id, true);
  }
}
