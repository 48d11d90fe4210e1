import type { RunView } from "./room-state";
import type { ChangeSetPayload, CheckpointPayload } from "@/lib/runner";

/**
 * The room's view of runner runs (§5): a queued run from `run.queued`, and what a runner's
 * own `runner.event`s change on its run. Kept beside room-state.ts, which applies them.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type E = { type: string; seq: number; [field: string]: any };

/** The runner fields a run read model may lack (an older server's snapshot): all null. */
export const RUNNER_DEFAULTS = { request: null, runner: null, checkpoint: null, change_set: null, runner_error: null, last_log: null } as const;

/** A run read model as the server sends it, with every field this view reads present. */
export function normalizeRun(r: RunView): RunView {
  const out = { ...r } as RunView & Record<string, unknown>;
  for (const [k, v] of Object.entries(RUNNER_DEFAULTS)) if (out[k] === undefined) out[k] = v;
  return out;
}

/** A run a person started from the room, waiting for a runner. */
export function queuedRun(e: E): RunView {
  return {
    ...RUNNER_DEFAULTS,
    id: e.run_id,
    space_id: e.space_id,
    harness_id: null,
    actor: e.actor,
    state: "queued",
    pending: null,
    goal: e.goal,
    goal_from: e.goal_from ?? null,
    session_ref: null,
    plan: [],
    status: null,
    usage: null,
    outcome: null,
    summary: null,
    started_seq: e.seq,
    started_at: e.ts,
    finished_at: null,
    request: e.request ?? null,
  };
}

/** What a runner's own event ([RN2]) changes on its run; never a timeline item. */
export function projectRunnerEvent(run: RunView, e: E): RunView {
  const message = typeof e.message === "string" ? e.message : "";
  switch (e.kind) {
    case "checkpoint":
      return e.payload ? { ...run, checkpoint: e.payload as CheckpointPayload } : run;
    case "change-set":
      return e.payload ? { ...run, change_set: e.payload as ChangeSetPayload } : run;
    case "failed":
      return { ...run, runner_error: message || "the runner failed" };
    case "log":
      return { ...run, last_log: message };
    default:
      return run; // started, completed: the run's own events say as much
  }
}
