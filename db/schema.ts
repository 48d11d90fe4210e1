import { sql } from "drizzle-orm";
import type {
  CommandName,
  DecisionStatus,
  GoalFrom,
  LatestStatus,
  Outcome,
  Pending,
  ReceiptState,
  RunnerRef,
  RunRequest,
  RunReview,
  RunState,
  Step,
  StoredActor,
  Usage,
} from "../lib/protocol";
import {
  bigint,
  boolean,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const created = () => timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow();

/** A workspace and its seq counter row: bumped once per commit, so seq order = commit order ([ENV8]). */
export const workspaces = pgTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  seqHead: bigint("seq_head", { mode: "number" }).notNull().default(0),
  createdAt: created(),
});

export const spaces = pgTable(
  "spaces",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    name: text("name").notNull(),
    /** Seq of the space's newest event: each event stores the one before it ([RT4] prev_seq). */
    seqHead: bigint("seq_head", { mode: "number" }).notNull().default(0),
    createdAt: created(),
  },
  (t) => [index("spaces_workspace_idx").on(t.workspaceId)],
);

export const persons = pgTable("persons", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id")
    .notNull()
    .references(() => workspaces.id),
  name: text("name").notNull(),
  /** owner | member | viewer (lib/server/roles.ts). */
  role: text("role").notNull(),
  createdAt: created(),
  /** Removed from the workspace: every session and token of theirs stops at once. */
  revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "string" }),
});

/** Invites by link (issue 15): the secret's hash, a role, single-use or good until it expires. */
export const invites = pgTable(
  "invites",
  {
    tokenHash: text("token_hash").primaryKey(),
    id: text("id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    role: text("role").notNull(),
    singleUse: boolean("single_use").notNull(),
    uses: integer("uses").notNull().default(0),
    createdBy: text("created_by").notNull(),
    createdAt: created(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [uniqueIndex("invites_id_key").on(t.id)],
);

/** Harnesses and runners (a runner is a harness that may also be sent `runner.start`). */
export const harnesses = pgTable("harnesses", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id")
    .notNull()
    .references(() => workspaces.id),
  name: text("name").notNull(),
  kind: text("kind").notNull(),
  createdAt: created(),
});

/** Bearer credentials, stored as SHA-256 of the token only. Admin credentials have no workspace. */
export const credentials = pgTable(
  "credentials",
  {
    tokenHash: text("token_hash").primaryKey(),
    /** The token's public id (tok_…): listed and revoked by it, never by its hash. */
    id: text("id").notNull(),
    kind: text("kind").notNull(),
    workspaceId: text("workspace_id"),
    subjectId: text("subject_id").notNull(),
    createdAt: created(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "string" }),
    /** Written when a node resolves it from the database: exact to about the credential cache time. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [index("credentials_subject_idx").on(t.subjectId), uniqueIndex("credentials_id_key").on(t.id)],
);

/** [ENV11] an agent id belongs to the harness that first spoke for it. */
export const agents = pgTable(
  "agents",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    harnessId: text("harness_id").notNull(),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.id] })],
);

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
  ],
);

/** Read model of a run (lib/protocol/models.ts `Run`; db/run-rows.ts maps it), written in the same transaction as its events. */
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
export const runEvents = pgTable(
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

/** Server-wide facts, e.g. which workspace the first start made. */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** One-time login links (the Jupyter pattern): the secret's hash, used at most once. */
export const loginLinks = pgTable("login_links", {
  tokenHash: text("token_hash").primaryKey(),
  workspaceId: text("workspace_id").notNull(),
  personId: text("person_id").notNull(),
  nextPath: text("next_path").notNull(),
  createdAt: created(),
  expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true, mode: "string" }),
});

/** Browser sessions: the cookie's hash, bound to one person of one workspace. */
export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    personId: text("person_id").notNull(),
    createdAt: created(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
    /** As for credentials: exact to about the cache time. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [index("sessions_person_idx").on(t.personId)],
);

/** Read model of run commands and their receipts ([RUN1], [UI5]; lib/protocol/models.ts `Receipt`), kept with their events. */
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

/** Artifacts ([RN3]) when several nodes share PostgreSQL: content-addressed per run (lib/server/runners/pg-blobs.ts). */
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

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * The review index of a run (docs/REVIEW.md): what the runs page filters and sorts on, taken
 * from the run read model, and its search words (lib/review/search-text.ts) as a tsvector.
 * Kept after commit by lib/server/review/indexer.ts, off the ingest path, up to
 * `review_cursor`'s seq; a read first brings it up to the log's head.
 */
export const runIndex = pgTable(
  "run_index",
  {
    runId: text("run_id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    spaceId: text("space_id").notNull(),
    state: text("state").$type<RunState>().notNull(),
    outcome: text("outcome").$type<Outcome>(),
    goal: text("goal").notNull(),
    goalFrom: text("goal_from").$type<GoalFrom>(),
    harnessId: text("harness_id"),
    agent: text("agent"),
    /** The person who queued it through Chips (run.queued), when one did. */
    personId: text("person_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "string" }),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "string" }),
    durationMs: bigint("duration_ms", { mode: "number" }),
    stepsDone: integer("steps_done").notNull(),
    stepsPlanned: integer("steps_planned").notNull(),
    tokens: bigint("tokens", { mode: "number" }),
    costUsd: doublePrecision("cost_usd"),
    files: integer("files"),
    additions: integer("additions"),
    deletions: integer("deletions"),
    failedChecks: integer("failed_checks"),
    verdict: text("verdict"),
    annotations: integer("annotations").notNull().default(0),
    lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
    doc: tsvector("doc").notNull(),
  },
  (t) => [
    index("run_index_recent_idx").on(t.workspaceId, t.createdAt.desc(), t.runId.desc()),
    index("run_index_doc_idx").using("gin", t.doc),
  ],
);

/** How far each workspace's log is in `run_index`. */
export const reviewCursor = pgTable("review_cursor", {
  workspaceId: text("workspace_id").primaryKey(),
  seq: bigint("seq", { mode: "number" }).notNull(),
});

/** A person's saved views of the runs page: a name and its query string. */
export const savedViews = pgTable(
  "saved_views",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    personId: text("person_id").notNull(),
    name: text("name").notNull(),
    query: text("query").notNull(),
    createdAt: created(),
  },
  (t) => [index("saved_views_person_idx").on(t.personId, t.createdAt)],
);

/**
 * Share links of runs (docs/REVIEW.md, [SHR1]): a read-only view of one run, optionally a
 * seq range, until `expires_at` or revocation. The token itself is never stored, only its
 * SHA-256 (the link is shown once, to whoever made it).
 */
export const shareLinks = pgTable(
  "share_links",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    workspaceId: text("workspace_id").notNull(),
    runId: text("run_id").notNull(),
    fromSeq: bigint("from_seq", { mode: "number" }),
    toSeq: bigint("to_seq", { mode: "number" }),
    createdBy: text("created_by").notNull(),
    createdAt: created(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "string" }),
    revokedBy: text("revoked_by"),
  },
  (t) => [
    uniqueIndex("share_links_token_key").on(t.tokenHash),
    index("share_links_workspace_idx").on(t.workspaceId, t.createdAt),
  ],
);

/** Every open of a share link: when and from where (the workspace sees them). */
export const shareOpens = pgTable(
  "share_opens",
  {
    shareId: text("share_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    openedAt: timestamp("opened_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    address: text("address"),
    userAgent: text("user_agent"),
  },
  (t) => [index("share_opens_share_idx").on(t.shareId, t.openedAt)],
);

/**
 * A room's current intent and outcome (lib/protocol/models.ts `RoomRevision`; db/room-rows.ts
 * maps it), written by the ingest writer with its `room.updated`. Its history is the log's.
 */
export const rooms = pgTable("rooms", {
  spaceId: text("space_id").primaryKey(),
  workspaceId: text("workspace_id").notNull(),
  revision: bigint("revision", { mode: "number" }).notNull(),
  intent: text("intent").notNull(),
  outcome: text("outcome").notNull(),
  actor: jsonb("actor").$type<StoredActor>(),
  ts: timestamp("ts", { withTimezone: true, mode: "string" }),
  seq: bigint("seq", { mode: "number" }),
});

/** A room's decisions (lib/protocol/models.ts `Decision`; db/room-rows.ts maps it), written by the ingest writer. */
export const decisions = pgTable(
  "decisions",
  {
    spaceId: text("space_id").notNull(),
    decisionId: text("decision_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    title: text("title").notNull(),
    text: text("text").notNull(),
    status: text("status").$type<DecisionStatus>().notNull(),
    supersedes: text("supersedes"),
    supersededBy: text("superseded_by"),
    actor: jsonb("actor").$type<StoredActor>().notNull(),
    ts: timestamp("ts", { withTimezone: true, mode: "string" }).notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    updatedSeq: bigint("updated_seq", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.spaceId, t.decisionId] })],
);

/**
 * A budget (issue 14, docs/ROOM-STATE.md [BUD2]): limits for one harness or runner, or for
 * the whole workspace (`subject` '*'). Cost is in micro-dollars so that sums stay exact.
 */
export const budgets = pgTable(
  "budgets",
  {
    workspaceId: text("workspace_id").notNull(),
    subject: text("subject").notNull(),
    tokensPerDay: bigint("tokens_per_day", { mode: "number" }),
    tokensPerMonth: bigint("tokens_per_month", { mode: "number" }),
    microUsdPerDay: bigint("micro_usd_per_day", { mode: "number" }),
    microUsdPerMonth: bigint("micro_usd_per_month", { mode: "number" }),
    warnAt: doublePrecision("warn_at").notNull(),
    setBy: text("set_by").notNull(),
    setAt: timestamp("set_at", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.subject] })],
);

/** What a harness spent per UTC day ([BUD1]), added to by the ingest writer with each usage report. */
export const usageDays = pgTable(
  "usage_days",
  {
    workspaceId: text("workspace_id").notNull(),
    harnessId: text("harness_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    tokens: bigint("tokens", { mode: "number" }).notNull(),
    microUsd: bigint("micro_usd", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.harnessId, t.day] })],
);
