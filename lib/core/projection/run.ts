import type { IncomingEvent, Run, Step, StoredActor, StoredEvent } from "@/lib/core/protocol";
import { callFinished, callStarted, callsEnded } from "./tool-calls";

/** A stored event of one type. */
export type Stored<T extends IncomingEvent["type"]> = Extract<StoredEvent, { type: T }>;

/**
 * How one stored event changes its run's fields: plan, state, status, usage, runner
 * fields. Command events only mark the run as touched here; what they do to its pending
 * flag and state is in receipts.ts, which knows the command. Pure: no I/O, no clock.
 */
export function foldRun(run: Run | null, e: StoredEvent): Run | null {
  switch (e.type) {
    case "run.queued":
      return run ?? queued(e);
    case "run.started":
      return started(run, e);
    case "run.status":
      return run && touch(run, e, { status: statusOf(e), ...(e.usage ? { usage: e.usage } : {}) });
    case "run.step":
      return run && touch(run, e, { plan: applyStep(run.plan, e) });
    case "run.finished":
      return run && finished(run, e);
    case "run.assigned":
      return run && touch(run, e, { harness_id: e.runner_id, runner: { id: e.runner_id, name: e.runner_name } });
    case "runner.event":
      return run && touch(run, e, runnerPatch(e));
    case "run.command":
    case "run.command_delivered":
    case "run.command_acked":
    case "run.notice":
      return run && touch(run, e, {});
    case "run.annotated":
      return run && touch(run, e, { review: reviewed(run.review, e) });
    case "tool.started":
      return run && touch(run, e, callStarted(run, e));
    case "tool.finished":
      return run && touch(run, e, callFinished(run, e));
    case "run.asked":
    case "run.ask_shown":
    case "run.answered":
    case "run.answer_applied":
    case "run.ask_closed":
      // What they do to its asks (and asks_open, waiting_since) is in asks.ts.
      return run && touch(run, e, {});
    case "message.posted":
    case "room.updated":
    case "decision.recorded":
    case "task.saved":
      return run;
  }
}

/** Every event of a run moves its last seq and update time. */
function touch(run: Run, e: StoredEvent, patch: Partial<Run>): Run {
  return { ...run, ...patch, last_seq: e.seq, updated_at: e.ts };
}

/** The harness a run's starter speaks for: itself, or an agent's harness ([ENV11]). */
function harnessOf(actor: StoredActor): string | null {
  if (actor.kind === "harness") return actor.id;
  if (actor.kind === "agent") return actor.harness_id ?? null;
  return null;
}

/** What a new run has of everything its first event does not say. */
const BLANK = {
  pending: null,
  status: null,
  usage: null,
  outcome: null,
  summary: null,
  finished_at: null,
  request: null,
  runner: null,
  checkpoint: null,
  change_set: null,
  runner_error: null,
  last_log: null,
  review: null,
  tools: null,
  asks_open: 0,
  waiting_since: null,
} as const satisfies Partial<Run>;

/** A run a person started through Chips: queued until a runner takes it (§5). */
function queued(e: Stored<"run.queued">): Run {
  return {
    ...BLANK,
    id: e.run_id!,
    workspace_id: e.workspace_id,
    space_id: e.space_id!,
    harness_id: null,
    actor: e.actor,
    state: "queued",
    goal: e.goal,
    goal_from: e.goal_from ?? null,
    session_ref: null,
    commands: null,
    plan: [],
    started_seq: null,
    last_seq: e.seq,
    created_at: e.ts,
    started_at: null,
    updated_at: e.ts,
    request: e.request,
  };
}

/** `run.started`: a new run posted straight by a harness, or a queued run its runner took. */
function started(run: Run | null, e: Stored<"run.started">): Run {
  const fields = {
    harness_id: run?.harness_id ?? harnessOf(e.actor),
    actor: e.actor,
    state: "running",
    goal: e.goal,
    goal_from: e.goal_from ?? null,
    session_ref: e.session_ref ?? null,
    commands: e.commands ?? null,
    plan: (e.plan ?? []).map((p): Step => ({ step_id: p.step_id, title: p.title, state: "pending" })),
    started_seq: e.seq,
    started_at: e.ts,
    last_seq: e.seq,
    updated_at: e.ts,
  } satisfies Partial<Run>;
  if (run) return { ...run, ...fields }; // it keeps its card, request and assignment
  return { ...BLANK, id: e.run_id!, workspace_id: e.workspace_id, space_id: e.space_id!, created_at: e.ts, ...fields };
}

function statusOf(e: Stored<"run.status">): Run["status"] {
  return {
    phase: e.phase,
    verb_phrase: e.verb_phrase,
    ...(e.progress !== undefined ? { progress: e.progress } : {}),
    ...(e.estimate_seconds !== undefined ? { estimate_seconds: e.estimate_seconds } : {}),
    ts: e.ts,
    seq: e.seq,
    actor: e.actor,
  };
}

const ENDED: ReadonlySet<Step["state"]> = new Set(["done", "failed", "skipped"]);

/** A step changes state, or a step with a title is added at the end ([UI1]). */
function applyStep(plan: Step[], e: Stored<"run.step">): Step[] {
  const at = plan.findIndex((s) => s.step_id === e.step_id);
  const prev: Step = at >= 0 ? plan[at] : { step_id: e.step_id, title: e.title!, state: "pending", added: true };
  const next: Step = {
    ...prev,
    title: e.title ?? prev.title,
    state: e.state,
    updated_seq: e.seq,
    ...(e.note !== undefined ? { note: e.note } : {}),
    ...(e.state === "active" && !prev.started_at ? { started_at: e.ts } : {}),
    ...(ENDED.has(e.state) ? { finished_at: e.ts } : {}),
  };
  return at >= 0 ? plan.map((s, i) => (i === at ? next : s)) : [...plan, next];
}

/** The run ends: an active step ends with it, done if the run succeeded, else failed. */
function finished(run: Run, e: Stored<"run.finished">): Run {
  const ended: Step["state"] = e.outcome === "succeeded" ? "done" : "failed";
  return touch(run, e, {
    state: "finished",
    pending: null,
    outcome: e.outcome,
    summary: e.summary ?? null,
    finished_at: e.ts,
    ...(e.usage ? { usage: e.usage } : {}),
    plan: run.plan.map((s) => (s.state === "active" ? { ...s, state: ended, finished_at: e.ts } : s)),
    tools: callsEnded(run.tools, e),
  });
}

/** An annotation counts; one with a verdict makes it the run's verdict ([ANN1]). */
function reviewed(review: Run["review"], e: Stored<"run.annotated">): Run["review"] {
  const was = review ?? { verdict: null, verdict_by: null, verdict_at: null, annotations: 0 };
  return {
    ...(e.verdict
      ? { verdict: e.verdict, verdict_by: e.actor.id, verdict_at: e.ts }
      : { verdict: was.verdict, verdict_by: was.verdict_by, verdict_at: was.verdict_at }),
    annotations: was.annotations + 1,
  };
}

/** What a runner's own event says about its run: newest checkpoint, change-set, failure, log line ([RN2]). */
function runnerPatch(e: Stored<"runner.event">): Partial<Run> {
  switch (e.kind) {
    case "checkpoint":
      return { checkpoint: e.payload ?? null };
    case "change-set":
      return { change_set: e.payload ?? null };
    case "failed":
      return { runner_error: e.message };
    case "log":
      return { last_log: e.message };
    case "started":
    case "completed":
      return {};
  }
}
