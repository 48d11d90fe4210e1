import { sql } from "drizzle-orm";
import type {
  CommandName,
  GoalFrom,
  LatestStatus,
  Outcome,
  Pending,
  ReceiptState,
  RunnerRef,
  RunRequest,
  RunReview,
  RunState,
  RunTools,
  Step,
  StoredActor,
  Usage,
} from "../../lib/core/protocol";
import {
  bigint,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { created } from "./columns";

/** The append-only log. The database itself enforces seq, key and id uniqueness. */
export const events = pgTable(
  "events",
  {
    workspaceId: text("workspace_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    id: text("id").notNull(),
    type: text("type").notNull(),
    spaceId: text("space_id"),
    /** Seq of the previous event of the same space ([RT4]); 0 for a space's first. */
    prevSeq: bigint("prev_seq", { mode: "number" }),
    runId: text("run_id"),
    idempotencyKey: text("idempotency_key"),
    /** SHA-256 of the event as sent, without server-owned fields ([ENV3], [ENV9]). */
    bodyHash: text("body_hash").notNull(),
    /** The stored event's exact JSON: a replay and a catch-up serve the same bytes. */
    body: text("body").notNull(),
    ts: timestamp("ts", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.seq] }),
    uniqueIndex("events_id_key").on(t.id),
    // Keys are unique per workspace, on one expression only a query for it can use (db/migrations/0012_dedupe_key_index.sql).
    uniqueIndex("events_workspace_key")
      .on(sql`(${t.workspaceId} || ' ' || ${t.idempotencyKey})`)
      .where(sql`${t.idempotencyKey} is not null`),
    index("events_space_seq_idx").on(t.workspaceId, t.spaceId, t.seq),
    index("events_run_seq_idx").on(t.runId, t.seq),
    // A room's revision history (db/migrations/0014_room_state.sql).
    index("events_room_updates_idx")
      .on(t.workspaceId, t.spaceId, t.seq)
      .where(sql`${t.type} = 'room.updated'`),
    // A room's tasks (db/migrations/0017_i14_tasks.sql).
    index("events_task_saves_idx")
      .on(t.workspaceId, t.spaceId, t.seq)
      .where(sql`${t.type} = 'task.saved'`),
    // A run's tool calls by call_id, for the judge ([TOOL2]; db/migrations/0018_i27_tool_calls.sql).
    index("events_tool_calls_idx")
      .on(t.runId, sql`((${t.body}::jsonb) ->> 'call_id')`)
      .where(sql`${t.type} in ('tool.started', 'tool.finished')`),
  ],
);

/** Read model of a run (lib/core/protocol/models.ts `Run`; db/run-rows.ts maps it), written in the same transaction as its events. */
export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    spaceId: text("space_id").notNull(),
    harnessId: text("harness_id"),
    actor: jsonb("actor").$type<StoredActor>(),
    state: text("state").$type<RunState>().notNull(),
    pending: text("pending").$type<Pending>(),
    goal: text("goal").notNull(),
    goalFrom: text("goal_from").$type<GoalFrom>(),
    sessionRef: text("session_ref"),
    /** The commands its harness obeys ([RUN2]); null: all. */
    commands: jsonb("commands").$type<CommandName[]>(),
    plan: jsonb("plan").$type<Step[]>().notNull(),
    status: jsonb("status").$type<LatestStatus>(),
    usage: jsonb("usage").$type<Usage>(),
    outcome: text("outcome").$type<Outcome>(),
    summary: text("summary"),
    startedSeq: bigint("started_seq", { mode: "number" }),
    lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "string" }),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "string" }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "string" }),
    /** What a person asked for when starting a runner run (run.queued). */
    request: jsonb("request").$type<RunRequest>(),
    /** The runner a queued run was handed to (run.assigned). */
    runner: jsonb("runner").$type<RunnerRef>(),
    checkpoint: jsonb("checkpoint").$type<Record<string, unknown>>(),
    changeSet: jsonb("change_set").$type<Record<string, unknown>>(),
    runnerError: text("runner_error"),
    lastLog: text("last_log"),
    /** People's annotations of it (run.annotated, docs/REVIEW.md). */
    review: jsonb("review").$type<RunReview>(),
    /** Its agent's tool calls ([TOOL4]). */
    tools: jsonb("tools").$type<RunTools>(),
    /** [ASK4] Its asks waiting for a person, and since when the oldest waits. */
    asksOpen: integer("asks_open").notNull().default(0),
    waitingSince: timestamp("waiting_since", { withTimezone: true, mode: "string" }),
  },
  (t) => [index("runs_space_idx").on(t.workspaceId, t.spaceId, t.createdAt)],
);

/**
 * A runner's lease on a run ([RN1], §5): renewed while the run lives. Kept out of the runs
 * read model so renewals never race the writer; a lapsed lease fails its run.
 */
export const leases = pgTable(
  "leases",
  {
    runId: text("run_id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    runnerId: text("runner_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [index("leases_expiry_idx").on(t.expiresAt)],
);

/** Every runner.event, once per (run_id, sequence) ([RN2]). */
export const runnerEvents = pgTable(
  "run_events",
  {
    runId: text("run_id").notNull(),
    sequence: bigint("sequence", { mode: "number" }).notNull(),
    workspaceId: text("workspace_id").notNull(),
    eventId: text("event_id").notNull(),
    kind: text("kind").notNull(),
    message: text("message").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>(),
    occurredAt: timestamp("occurred_at", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.sequence] })],
);

/** Read model of run commands and their receipts ([RUN1], [UI5]; lib/core/protocol/models.ts `Receipt`), kept with their events. */
export const commands = pgTable(
  "commands",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    runId: text("run_id").notNull(),
    /** The harness (or runner) the command goes to. */
    harnessId: text("harness_id"),
    command: text("command").$type<CommandName>().notNull(),
    text: text("text"),
    personId: text("person_id").notNull(),
    /** accepted → delivered → applied | rejected */
    receipt: text("receipt").$type<ReceiptState>().notNull(),
    reason: text("reason"),
    seq: bigint("seq", { mode: "number" }).notNull(),
    ackSeq: bigint("ack_seq", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "string" }),
    ackedAt: timestamp("acked_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [index("commands_run_idx").on(t.runId, t.seq), index("commands_harness_open_idx").on(t.harnessId, t.receipt)],
);

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (v) => Buffer.from(v),
});

/** Artifacts ([RN3]) when several nodes share PostgreSQL: content-addressed per run (lib/server/dispatch/pg-blobs.ts). */
export const objects = pgTable(
  "objects",
  {
    key: text("key").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    runId: text("run_id").notNull(),
    sha256: text("sha256").notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    body: bytea("body").notNull(),
    createdAt: created(),
  },
  (t) => [index("objects_run_idx").on(t.runId)],
);
