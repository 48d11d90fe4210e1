import {
  clipUtf8,
  LIMITS,
  newId,
  type Ask,
  type IncomingEvent,
  type ProblemError,
  type Receipt,
  type StoredEvent,
} from "@/lib/core/protocol";
import type { Credential } from "../credentials";
import type { BatchState } from "./batch-state";
import { foldRunEvent, type RunFold } from "@/lib/core/projection/fold";
import { foldRoom } from "@/lib/core/projection/room";
import { foldDecisions, type Decisions } from "@/lib/core/projection/decisions";
import { decisionKey } from "./batch-state";
import { derivedEvents } from "./command-rules";
import { derivedAskEvents } from "./ask-rules";
import { accountUsage } from "./budget-rules";
import { judge, stamp } from "./rules";
import { callKey } from "./tool-rules";
import { bodyHash, serializeEvent } from "./serialize";
import type { IngestRequest } from "./request";

/**
 * An event accepted into the batch: stamped, serialized, its body hash and its space's
 * previous seq. The one object per event that the batch's dedupe maps, the write, the
 * answers and the fan-out share (it is the writer's `Committed`). A class, not an object
 * literal: V8 pretenures a literal's allocation site when its objects outlive a scavenge, as
 * these do (they live across the commit's round trip), and an object born in old space keeps
 * every young string it points at through each scavenge until the next full GC, dead or
 * alive — the PGlite batch load copied 4–5× what was in flight (docs/PERFORMANCE.md).
 * `new` of a class has no allocation site to pretenure.
 */
export class Accepted {
  constructor(
    readonly event: StoredEvent,
    readonly body: string,
    readonly hash: string,
    readonly prevSeq: number | null,
  ) {}
}

/** A derived event that could not be appended, nor its notice: the writer logs it ([DRV1]). */
export interface Unrecorded {
  event: IncomingEvent;
  problem: ProblemError;
}

export type RequestOutcome =
  { ok: true; answer: string[]; accepted: Accepted[]; unrecorded: Unrecorded[] } | { ok: false; problem: ProblemError };

type FollowUp = { cred: Credential; event: IncomingEvent; hash: string };

const systemOf = (workspaceId: string): Credential => ({ kind: "system", workspaceId, subjectId: "system" });

/**
 * Judge and apply one request's events against the batch state, all or nothing: a refusal
 * rolls back exactly this request. Events the rules derive (a cancel's run.finished, a
 * budget's pause) are appended by the system right after the event that caused them; one the
 * judge refuses never fails its cause: a `run.notice` saying what could not be done and why is
 * appended in its place ([DRV1]).
 */
export function applyRequest(state: BatchState, req: IngestRequest, ts: string): RequestOutcome {
  state.beginRequest();
  const accepted: Accepted[] = [];
  const answer: string[] = [];
  const unrecorded: Unrecorded[] = [];
  for (let i = 0; i < req.events.length; i++) {
    const at = req.storedAt?.[i] ?? ts;
    const v = judge(state, req.credential, req.events[i], req.hashes[i], req.pointers[i], at);
    if (v.kind === "refuse") {
      state.rollbackRequest();
      return { ok: false, problem: v.problem };
    }
    if (v.kind === "replay") {
      answer.push(v.body);
      continue;
    }
    const queue: FollowUp[] = [];
    const first = accept(state, req.credential, v.event, req.hashes[i], at, queue);
    accepted.push(first);
    answer.push(first.body);
    while (queue.length) {
      const f = queue.shift()!;
      const fv = judge(state, f.cred, f.event, f.hash, "", at);
      if (fv.kind === "accept") accepted.push(accept(state, f.cred, fv.event, f.hash, at, queue));
      else if (fv.kind === "refuse") {
        // A notice is taken in any state of its run; one refused too (its room unknown) is logged.
        const notice = f.event.type === "run.notice" ? null : noticeOf(f.event, fv.problem);
        if (notice) queue.unshift({ cred: f.cred, event: notice, hash: bodyHash(notice, f.cred) });
        else unrecorded.push({ event: f.event, problem: fv.problem });
      }
      // A replay: the derived event is stored already (it cannot be: its id is new).
    }
  }
  state.commitRequest();
  return { ok: true, answer, accepted, unrecorded };
}

/**
 * [DRV1] The notice that takes a refused derived event's place: what Chips meant to do to the
 * run and why it could not, e.g. "could not pause this run (budget exhausted: …): this run's
 * harness does not take pause: it is watch-only". Null for an event of no run.
 */
function noticeOf(e: IncomingEvent, refusal: ProblemError): IncomingEvent | null {
  if (!e.run_id) return null;
  const meant =
    e.type === "run.command"
      ? `could not ${e.command} this run${e.text ? ` (${e.text})` : ""}`
      : `could not append ${e.type} to this run`;
  return {
    v: 1,
    type: "run.notice",
    id: newId("event"),
    workspace_id: e.workspace_id,
    ...(e.space_id ? { space_id: e.space_id } : {}),
    run_id: e.run_id,
    text: clipUtf8(`${meant}: ${refusal.detail}`, LIMITS.note),
    derived: { type: e.type, ...(e.type === "run.command" ? { command: e.command } : {}) },
    code: refusal.code,
  };
}

function accept(
  state: BatchState,
  cred: Credential,
  ev: IncomingEvent,
  hash: string,
  ts: string,
  followUps: FollowUp[],
): Accepted {
  let owner: string | undefined;
  if (ev.actor?.kind === "agent") {
    owner = state.agents.get(ev.actor.id) ?? cred.subjectId;
    if (!state.agents.has(ev.actor.id)) state.set(state.agents, ev.actor.id, owner);
  }
  const e = stamp(ev, cred, state.nextSeq(), ts, owner);
  const body = serializeEvent(e);

  if (e.run_id) {
    // The one projection folds the event into the run and its receipts (lib/core/projection/).
    const before: RunFold = {
      run: state.runs.get(e.run_id) ?? null,
      receipts: receiptsOf(state, e.run_id),
      asks: asksOf(state, e.run_id),
    };
    const after = foldRunEvent(before, e);
    if (after.run) state.set(state.runs, e.run_id, after.run);
    for (const r of after.receipts) {
      if (before.receipts.includes(r)) continue;
      state.set(state.commands, r.command_id, r);
      if (!("command_id" in e) || r.command_id !== e.command_id) state.set(state.settled, r.command_id, true);
    }
    if (e.type === "run.command_acked") state.set(state.ackBodies, e.command_id, body);
    if (e.type === "tool.started" || e.type === "tool.finished")
      state.set(state.calls, callKey(e.run_id, e.call_id), true);
    if (after.asks !== before.asks)
      for (const a of after.asks) {
        if (before.asks.includes(a)) continue;
        state.set(state.asks, a.ask_id, a);
        state.set(state.askChanges, a.ask_id, true);
      }
    if (e.type === "run.answer_applied" || e.type === "run.ask_closed") state.set(state.askSettles, e.ask_id, body);
    const sys = systemOf(e.workspace_id);
    for (const f of [
      ...derivedEvents(before, e),
      ...derivedAskEvents(before, e),
      ...accountUsage(state, before.run, after.run, e),
    ])
      followUps.push({ cred: sys, event: f, hash: bodyHash(f, sys) });
  }
  if (e.type === "room.updated") state.set(state.rooms, e.space_id!, foldRoom(state.rooms.get(e.space_id!)!, e));
  if (e.type === "decision.recorded") foldDecisionsInto(state, e);
  let prevSeq: number | null = null;
  if (e.space_id) {
    prevSeq = state.spaceHeads.get(e.space_id)!;
    state.set(state.spaceHeads, e.space_id, e.seq);
  }
  const known = new Accepted(e, body, hash, prevSeq);
  if (e.idempotency_key) state.set(state.byKey, e.idempotency_key, known);
  if (e.type === "runner.event") {
    state.set(state.byRunnerSeq, `${e.run_id}:${e.sequence}`, known);
    state.set(state.runnerHeads, e.run_id!, e.sequence); // the judge let only a higher one through
  }
  state.set(state.byId, e.id, known);
  return known;
}

/** The receipts the batch knows of a run's commands: those its events name, and a finishing run's open ones. */
function receiptsOf(state: BatchState, runId: string): Receipt[] {
  const out: Receipt[] = [];
  for (const r of state.commands.values()) if (r && r.run_id === runId) out.push(r);
  return out;
}

/** The asks the batch knows of a run (those its events name, and its unsettled ones), oldest first. */
function asksOf(state: BatchState, runId: string): Ask[] {
  const out: Ask[] = [];
  for (const a of state.asks.values()) if (a.run_id === runId) out.push(a);
  return out.length > 1 ? out.sort((x, y) => x.seq - y.seq) : out;
}

/** The decisions an event names, folded by the one projection and kept for the write. */
function foldDecisionsInto(state: BatchState, e: Extract<StoredEvent, { type: "decision.recorded" }>) {
  const named: Decisions = {};
  for (const id of [e.decision_id, e.supersedes]) {
    const d = id && state.decisions.get(decisionKey(e.space_id!, id));
    if (d) named[d.decision_id] = d;
  }
  const after = foldDecisions(named, e);
  for (const d of Object.values(after))
    if (after[d.decision_id] !== named[d.decision_id])
      state.set(state.decisions, decisionKey(e.space_id!, d.decision_id), d);
}
