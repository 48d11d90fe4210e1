import type { AskOptions, AskOutcome, AskRequest } from "./asks";
import type { EventInput, PlanStep, StoredEvent, Usage } from "./types";

/** How a RunHandle posts and asks: the client's `post` and `ask`. */
export interface RunPoster {
  post(event: EventInput): Promise<StoredEvent>;
  ask(runId: string, request: AskRequest, opts?: AskOptions): Promise<AskOutcome>;
}

/** What `startRun` takes. */
export interface StartRunOptions {
  /** The room (`spc_…`) the run works in. */
  spaceId: string;
  goal: string;
  /** The steps, each a dot on the run panel. */
  plan?: PlanStep[];
  /** Where the goal came from: `harness` (a person asked at the harness), `chips` (a message in the room). */
  goalFrom?: "harness" | "chips";
  /** Tells two terminals in one room apart (e.g. a session id). */
  sessionRef?: string;
  /** The run's id; a fresh `run_` ULID when left out. */
  runId?: string;
}

/** A `run.status`: what the typing indicator shows. */
export interface StatusUpdate {
  /** A short machine-ish phase, e.g. `reading`. */
  phase: string;
  /** Shown verbatim, e.g. `Reading PO #4471…`. */
  verbPhrase: string;
  /** 0..1, never decreasing within a run. */
  progress?: number;
  /** Seconds still to go (a live countdown in the room). */
  estimateSeconds?: number;
  usage?: Usage;
}

export type StepState = "active" | "done" | "failed" | "skipped";
export type Outcome = "succeeded" | "failed" | "cancelled";

/**
 * One run of a harness: each method posts one event of the run (through the client, so
 * with retries) and answers it as stored.
 */
export class RunHandle {
  constructor(
    private readonly client: RunPoster,
    /** The run's id (`run_…`). */
    readonly runId: string,
    /** The room it works in. */
    readonly spaceId: string,
    /** The stored `run.started` (null for a handle made with `client.runHandle`). */
    readonly started: StoredEvent | null,
  ) {}

  /** Post a `run.status` (the typing indicator: phase, verb phrase, progress, estimate). */
  status(s: StatusUpdate): Promise<StoredEvent> {
    return this.client.post({
      type: "run.status",
      run_id: this.runId,
      phase: s.phase,
      verb_phrase: s.verbPhrase,
      ...(s.progress !== undefined ? { progress: s.progress } : {}),
      ...(s.estimateSeconds !== undefined ? { estimate_seconds: s.estimateSeconds } : {}),
      ...(s.usage !== undefined ? { usage: s.usage } : {}),
    });
  }

  /** Post a `run.step`: a plan step's new state; a `title` adds a step not in the plan (at the end). */
  step(stepId: string, state: StepState, opts: { title?: string; note?: string } = {}): Promise<StoredEvent> {
    return this.client.post({
      type: "run.step",
      run_id: this.runId,
      step_id: stepId,
      state,
      ...(opts.title !== undefined ? { title: opts.title } : {}),
      ...(opts.note !== undefined ? { note: opts.note } : {}),
    });
  }

  /** Ask a person in the room and wait for the answer (see `ChipsClient.ask`). */
  ask(request: AskRequest, opts: AskOptions = {}): Promise<AskOutcome> {
    return this.client.ask(this.runId, request, opts);
  }

  /** Post a `message.posted` (markdown) in the run's room, as part of the run. */
  message(text: string, opts: { replyTo?: string } = {}): Promise<StoredEvent> {
    return this.client.post({
      type: "message.posted",
      space_id: this.spaceId,
      run_id: this.runId,
      text,
      ...(opts.replyTo !== undefined ? { reply_to: opts.replyTo } : {}),
    });
  }

  /** Post `run.finished` with its outcome; nothing of the run but acks is taken after it. */
  finish(outcome: Outcome, opts: { summary?: string; usage?: Usage } = {}): Promise<StoredEvent> {
    return this.client.post({
      type: "run.finished",
      run_id: this.runId,
      outcome,
      ...(opts.summary !== undefined ? { summary: opts.summary } : {}),
      ...(opts.usage !== undefined ? { usage: opts.usage } : {}),
    });
  }

  /**
   * Answer a command of this run (`run.command_acked`): `applied` once it has been done (a
   * pause: the run has stopped), or `rejected` with a reason.
   */
  ack(commandId: string, result: "applied" | "rejected", reason?: string): Promise<StoredEvent> {
    return this.client.post({
      type: "run.command_acked",
      run_id: this.runId,
      command_id: commandId,
      result,
      ...(reason !== undefined ? { reason } : {}),
    });
  }
}

/** The `run.started` event for `startRun`'s options and run id. */
export function runStartedEvent(o: StartRunOptions, runId: string): EventInput {
  return {
    type: "run.started",
    space_id: o.spaceId,
    run_id: runId,
    goal: o.goal,
    ...(o.plan !== undefined ? { plan: o.plan } : {}),
    ...(o.goalFrom !== undefined ? { goal_from: o.goalFrom } : {}),
    ...(o.sessionRef !== undefined ? { session_ref: o.sessionRef } : {}),
  };
}
