import { problem, type IncomingEvent, type ProblemError, type Run, type StoredEvent } from "@/lib/core/protocol";
import type { Credential } from "../credentials";
import { clientFields } from "./serialize";
import type { BatchState } from "./batch-state";
import { judgeAck, judgeCommand, judgeDelivered } from "./command-rules";
import { judgeDecision, judgeRoomUpdate } from "./room-rules";
import { judgeBudget } from "./budget-rules";
import { judgeTool } from "./tool-rules";
import { isAskEvent, judgeAsk } from "./ask-rules";
import { WORKSPACE_SUBJECT } from "@/lib/core/projection/budget";

export type Verdict =
  | { kind: "replay"; body: string }
  | { kind: "refuse"; problem: ProblemError }
  | { kind: "accept"; run: Run | null; event: IncomingEvent };

const refuse = (code: ProblemError["code"], detail: string, pointer: string): Verdict => ({
  kind: "refuse",
  problem: problem(code, detail, [{ pointer, message: detail }]),
});

/** Events a finished run still takes: a command's ack, the end of an ask ([ASK5]) and late answers to it ([ASK2]). */
const AFTER_FINISH = new Set(["run.command_acked", "run.answer_applied", "run.ask_closed", "run.answered"]);

/**
 * The stateful rules for one parsed, authorized event, in [HTTP2] order: the agent
 * registry (403), replay, key reuse, id conflict, 404s, then the run lifecycle ([RUN1]) and
 * the asks' ([ASK1]–[ASK6]). `now` is the time the event would be stored at.
 */
export function judge(
  s: BatchState,
  cred: Credential,
  e: IncomingEvent,
  hash: string,
  base: string,
  now: string,
): Verdict {
  if (e.actor?.kind === "agent") {
    const owner = s.agents.get(e.actor.id);
    if (owner && owner !== cred.subjectId)
      return refuse("forbidden", "this agent id is registered to another harness", `${base}/actor/id`);
  }

  const known =
    e.type === "runner.event"
      ? s.byRunnerSeq.get(`${e.run_id}:${e.sequence}`)
      : e.idempotency_key
        ? s.byKey.get(e.idempotency_key)
        : undefined;
  if (known) {
    if (known.hash === hash) return { kind: "replay", body: known.body };
    return e.type === "runner.event"
      ? refuse(
          "sequence_conflict",
          `this run already has runner event ${e.sequence} with another body`,
          `${base}/sequence`,
        )
      : refuse("idempotency_key_reused", "this idempotency key was used for another event", `${base}/idempotency_key`);
  }
  if (s.byId.has(e.id))
    return refuse("event_id_conflict", "an event with this id and another body exists", `${base}/id`);

  if (e.space_id && !s.spaceHeads.has(e.space_id))
    return refuse("space_not_found", "no such space in this workspace", `${base}/space_id`);

  const roomProblem =
    e.type === "room.updated"
      ? judgeRoomUpdate(s, e, base)
      : e.type === "decision.recorded"
        ? judgeDecision(s, e, base)
        : null;
  if (roomProblem) return { kind: "refuse", problem: roomProblem };
  if (!e.run_id) return { kind: "accept", run: null, event: e };
  const run = s.runs.get(e.run_id) ?? null;
  if (e.type === "run.started") {
    if (s.foreignRuns.has(e.run_id)) return refuse("run_not_found", "no such run in this workspace", `${base}/run_id`);
    if (run && run.state !== "queued") return refuse("run_exists", "this run has already started", `${base}/run_id`);
    if (run && run.harness_id !== cred.subjectId) {
      return refuse(
        "forbidden",
        "this queued run was not handed to this runner (it takes a run.assigned first)",
        `${base}/run_id`,
      );
    }
    // [BUD2] a harness whose budget (or the workspace's) is exhausted starts no new run.
    const spent =
      cred.kind === "harness" || cred.kind === "runner"
        ? judgeBudget(s, [cred.subjectId, WORKSPACE_SUBJECT], `${base}/run_id`)
        : null;
    if (spent) return { kind: "refuse", problem: spent };
    return { kind: "accept", run, event: e };
  }
  if (e.type === "run.queued") {
    if (s.foreignRuns.has(e.run_id!) || run) return refuse("run_exists", "a run with this id exists", `${base}/run_id`);
    const spent = judgeBudget(s, [WORKSPACE_SUBJECT], `${base}/run_id`);
    if (spent) return { kind: "refuse", problem: spent };
    return { kind: "accept", run, event: e };
  }
  if (!run) return refuse("run_not_found", "no such run in this workspace", `${base}/run_id`);
  if (e.space_id && e.space_id !== run.space_id) {
    return refuse("validation_failed", "the run belongs to another space", `${base}/space_id`);
  }
  const event = e.space_id ? e : { ...e, space_id: run.space_id };
  if ((cred.kind === "harness" || cred.kind === "runner") && run.harness_id !== cred.subjectId) {
    return refuse("forbidden", "this run belongs to another harness", `${base}/run_id`);
  }
  // [RN2] sequences rise strictly per run (gaps allowed): one at or below the highest stored is
  // a replay (answered before any rule) or late — storing it would reorder what the runner said.
  const head = e.type === "runner.event" ? s.runnerHeads.get(e.run_id!) : undefined;
  if (e.type === "runner.event" && head !== undefined && e.sequence <= head)
    return refuse(
      "sequence_conflict",
      `runner event sequences rise strictly: this run is at ${head}, so ${e.sequence} comes too late`,
      `${base}/sequence`,
    );
  // Review comes after the fact: an annotation is taken in any state ([ANN2], docs/REVIEW.md);
  // so is Chips' notice of what it could not append, or it could fail its cause ([DRV1]).
  if (e.type === "run.annotated" || e.type === "run.notice") return { kind: "accept", run, event };
  if (run.state === "finished" && !AFTER_FINISH.has(e.type)) {
    return refuse("run_finished", "the run has finished", `${base}/run_id`);
  }
  if (run.state === "paused" && (e.type === "run.status" || e.type === "run.step" || e.type === "run.asked")) {
    return refuse("run_paused", "the run is paused", `${base}/run_id`);
  }
  if (e.type === "run.command") {
    const p = judgeCommand(run, e, base);
    if (p) return { kind: "refuse", problem: p };
  }
  if (e.type === "run.command_delivered") {
    const p = judgeDelivered(s.commands.get(e.command_id), run, base);
    if (p) return { kind: "refuse", problem: p };
  }
  if (e.type === "run.command_acked") {
    const v = judgeAck(s.commands.get(e.command_id), run, e, s.ackBodies.get(e.command_id), base);
    if (v.kind !== "ok") return v;
  }
  if (e.type === "run.assigned" && (run.state !== "queued" || run.harness_id)) {
    return refuse("invalid_transition", "only a queued run nobody has taken can be assigned", `${base}/run_id`);
  }
  if (e.type === "run.assigned") {
    // [BUD2] a runner whose budget is exhausted is handed no run (the run stays queued for another).
    const spent = judgeBudget(s, [e.runner_id, WORKSPACE_SUBJECT], `${base}/runner_id`);
    if (spent) return { kind: "refuse", problem: spent };
  }
  // [ASK3] an answer is a person's (the answers API writes it for them; imports keep its person).
  if (e.type === "run.answered" && cred.kind !== "person")
    return refuse("forbidden", "answers come from people", `${base}/type`);
  if (isAskEvent(e) && run.state !== "queued") {
    const v = judgeAsk(s, run, e, now, base);
    if (v.kind !== "ok") return v;
    return { kind: "accept", run, event: v.event.space_id ? v.event : { ...v.event, space_id: run.space_id } };
  }
  // A queued run can be cancelled, assigned, or refused by its runner (runner.event + run.finished).
  const whileQueued =
    e.type.startsWith("run.command") ||
    e.type === "run.finished" ||
    e.type === "run.assigned" ||
    e.type === "runner.event";
  if (run.state === "queued" && !whileQueued) {
    return refuse("invalid_transition", "the run is queued: it takes run.started first", `${base}/run_id`);
  }
  if (
    e.type === "run.status" &&
    e.progress !== undefined &&
    run.status?.progress !== undefined &&
    e.progress < run.status.progress
  ) {
    return refuse(
      "validation_failed",
      `progress never decreases within a run (was ${run.status.progress})`,
      `${base}/progress`,
    );
  }
  if (e.type === "run.step" && !e.title && !run.plan.some((p) => p.step_id === e.step_id)) {
    return refuse("validation_failed", "unknown step_id: give a title to add a step", `${base}/step_id`);
  }
  if (e.type === "tool.started" || e.type === "tool.finished") {
    const p = judgeTool(s, run, e, base);
    if (p) return { kind: "refuse", problem: p };
  }
  return { kind: "accept", run, event };
}

/** The event as stored: server-owned fields set ([ENV4], [ENV8], [ENV10], [ENV11]). */
export function stamp(e: IncomingEvent, cred: Credential, seq: number, ts: string, agentOwner?: string): StoredEvent {
  const sent = e.actor;
  const actor =
    cred.kind === "person"
      ? { kind: "person" as const, id: cred.subjectId }
      : cred.kind === "system"
        ? { kind: "system" as const, id: "system" }
        : sent!.kind === "agent"
          ? { kind: "agent" as const, id: sent!.id, harness_id: agentOwner ?? cred.subjectId }
          : {
              kind: sent!.kind,
              id: sent!.id.toUpperCase() === cred.subjectId.toUpperCase() ? cred.subjectId : sent!.id,
            };
  return Object.assign(clientFields(e), { ts, seq, actor }) as StoredEvent;
}
