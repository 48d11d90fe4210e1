import type { GoalFrom, Outcome, RunState } from "../../lib/core/protocol";
import {
  bigint,
  customType,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { created } from "./columns";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * The review index of a run (docs/REVIEW.md): what the runs page filters and sorts on, taken
 * from the run read model, and its search words (lib/core/review/search-text.ts) as a tsvector.
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

/**
 * The tool calls of the review index ([TOOL6]): one row per call, what rollups by tool group
 * (count, failures, percentiles of time). Kept by the same indexer rounds as `run_index`, from
 * the calls' events: the start says the tool and time, the end the outcome and duration.
 */
export const toolCallIndex = pgTable(
  "tool_call_index",
  {
    runId: text("run_id").notNull(),
    callId: text("call_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    /** Null until the event that names it is indexed. */
    tool: text("tool"),
    /** Null while it runs (or its end was never reported). */
    outcome: text("outcome"),
    durationMs: bigint("duration_ms", { mode: "number" }),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "string" }),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.callId] }),
    index("tool_call_index_tool_idx").on(t.workspaceId, t.tool, t.startedAt),
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
