import { z } from "zod";
import { AckResult, CommandName, Outcome, StepState } from "./events";
import { RunRequest } from "./dispatch-events";
import { DecisionStatus } from "./room-events";
import { Verdict } from "./annotation-events";
import { ActorKind, GoalFrom, Usage } from "./fields";
import { CallTally, RunTools } from "./tool-calls";

/**
 * The read models: what Chips keeps of runs and their commands, folded from the log by
 * the one projection (lib/core/projection/) — on the server in the same transaction as the
 * events, in the browser from the live feed, and in a replay from the catch-up API. Served
 * as they are here by GET /api/v1/runs/:id, the commands endpoint and the room snapshot;
 * the database's `runs` and `commands` rows are their storage form (db/run-rows.ts).
 */

/** Run states of [RUN1]: `queued` → `running` ⇄ `paused` → `finished`. */
export const RunState = z.enum(["queued", "running", "paused", "finished"]);
export type RunState = z.infer<typeof RunState>;

/** What a state-changing command shows on its run until the harness acks it ([RUN1]). */
export const Pending = z.enum(["pausing", "resuming", "cancelling"]);
export type Pending = z.infer<typeof Pending>;

/** An actor as stored on an event (server-stamped, so no checks beyond its shape). */
export const StoredActor = z.object({ kind: ActorKind, id: z.string(), harness_id: z.string().optional() });
export type StoredActor = z.infer<typeof StoredActor>;

/** One plan step as the run panel draws it: one dot ([UI1]). */
export const Step = z.object({
  step_id: z.string(),
  title: z.string(),
  state: StepState,
  note: z.string().optional(),
  /** Added by a `run.step` with a title after the run started. */
  added: z.boolean().optional(),
  /** When it first went active; when it reached done, failed or skipped. */
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  /** Seq of the event that last changed it. */
  updated_seq: z.number().int().optional(),
  /** The tool calls made in it ([TOOL4]); left out until the first. */
  tools: CallTally.optional(),
});
export type Step = z.infer<typeof Step>;

/** A run's latest `run.status`: the typing indicator ([UI2]). */
export const LatestStatus = z.object({
  phase: z.string(),
  verb_phrase: z.string(),
  progress: z.number().optional(),
  estimate_seconds: z.number().optional(),
  /** Server time and seq of the status. */
  ts: z.string(),
  seq: z.number().int(),
  actor: StoredActor,
});
export type LatestStatus = z.infer<typeof LatestStatus>;

/** The runner a queued run was handed to (`run.assigned`). */
export const RunnerRef = z.object({ id: z.string(), name: z.string() });
export type RunnerRef = z.infer<typeof RunnerRef>;

/** A runner's payload as it sent it (`runner.event`); lib/core/protocol/runner-contract.ts's schemas read it. */
const RunnerPayload = z.record(z.string(), z.unknown());

/** Where a run's review stands ([ANN1]): its newest verdict, by whom and when, and how many annotations it has. */
export const RunReview = z.object({
  verdict: Verdict.nullable(),
  verdict_by: z.string().nullable(),
  verdict_at: z.string().nullable(),
  annotations: z.number().int(),
});
export type RunReview = z.infer<typeof RunReview>;

/** A run as the room draws it and the API serves it. Times are ISO 8601, seqs the log's. */
export const Run = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    space_id: z.string(),
    /** The harness (or runner) that drives it; null while a queued run waits for a runner. */
    harness_id: z.string().nullable(),
    /** Who started it: the harness or agent of `run.started`, or the person of `run.queued`. */
    actor: StoredActor.nullable(),
    state: RunState,
    pending: Pending.nullable(),
    goal: z.string(),
    goal_from: GoalFrom.nullable(),
    session_ref: z.string().nullable(),
    /** [RUN2] The commands its harness obeys (`[]`: watch-only); null when it declared none, which means all. */
    commands: z.array(CommandName).nullable(),
    plan: z.array(Step),
    status: LatestStatus.nullable(),
    usage: Usage.nullable(),
    outcome: Outcome.nullable(),
    summary: z.string().nullable(),
    /** Seq and time of its `run.started`; null while it is queued. */
    started_seq: z.number().int().nullable(),
    last_seq: z.number().int(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    /** What a person asked a runner for (`run.queued`); null for a run a harness posted itself. */
    request: RunRequest.nullable(),
    runner: RunnerRef.nullable(),
    /** The runner's newest checkpoint and change-set payloads, its failure and last log line. */
    checkpoint: RunnerPayload.nullable(),
    change_set: RunnerPayload.nullable(),
    runner_error: z.string().nullable(),
    last_log: z.string().nullable(),
    /** People's annotations of it (run.annotated); null until the first. */
    review: RunReview.nullable(),
    /** Its agent's tool calls ([TOOL4]); null until the first. */
    tools: RunTools.nullable(),
    /**
     * [ASK4] Its asks still waiting for a person (asked or shown), and since when the oldest
     * of them waits: "needs you · since 14:02". Null while none waits.
     */
    asks_open: z.number().int(),
    waiting_since: z.string().nullable(),
  })
  .meta({ id: "Run" });
export type Run = z.infer<typeof Run>;

/** Where a command's receipt stands ([UI5]): accepted → delivered → applied | rejected. */
export const ReceiptState = z.enum(["accepted", "delivered", AckResult.enum.applied, AckResult.enum.rejected]);
export type ReceiptState = z.infer<typeof ReceiptState>;

/** A person's command to a run and its receipt ([RUN1], [UI5]). */
export const Receipt = z
  .object({
    command_id: z.string(),
    workspace_id: z.string(),
    run_id: z.string(),
    /** The harness (or runner) it goes to: the run's when it was sent. */
    harness_id: z.string().nullable(),
    command: CommandName,
    text: z.string().nullable(),
    person_id: z.string(),
    receipt: ReceiptState,
    reason: z.string().nullable(),
    seq: z.number().int(),
    /** Seq of the harness's `run.command_acked`; null until it acks (also when the run's end settled it). */
    ack_seq: z.number().int().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    acked_at: z.string().nullable(),
  })
  .meta({ id: "Receipt" });
export type Receipt = z.infer<typeof Receipt>;

/**
 * A room's intent and outcome at one revision (docs/PROTOCOL.md §6): what the people want and what
 * done looks like, in markdown. The room's current state is its newest revision; its history
 * is every revision in order. Revision 0 is the empty room nobody has edited yet ([ROOM1]).
 */
export const RoomRevision = z.object({
  workspace_id: z.string(),
  space_id: z.string(),
  /** Gap-free per room: each save makes the one after the revision it was based on. */
  revision: z.number().int().min(0),
  intent: z.string(),
  outcome: z.string(),
  /** Who saved it, when, and the seq of its `room.updated`; null for revision 0. */
  actor: StoredActor.nullable(),
  ts: z.string().nullable(),
  seq: z.number().int().nullable(),
});
export type RoomRevision = z.infer<typeof RoomRevision>;

/** A decision of a room ([DEC1], [DEC2]): who recorded it and when, and what superseded it. */
export const Decision = z.object({
  workspace_id: z.string(),
  space_id: z.string(),
  decision_id: z.string(),
  title: z.string(),
  text: z.string(),
  status: DecisionStatus,
  /** The decision this one replaced, and the one that replaced this (null while active, or when withdrawn). */
  supersedes: z.string().nullable(),
  superseded_by: z.string().nullable(),
  /** Who recorded it, when, and the seq of that `decision.recorded`. */
  actor: StoredActor,
  ts: z.string(),
  seq: z.number().int(),
  /** Seq of the event that last changed it (its recording, a supersede, a withdrawal). */
  updated_seq: z.number().int(),
});
export type Decision = z.infer<typeof Decision>;
