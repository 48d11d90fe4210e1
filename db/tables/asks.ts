import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { AskAnswer, AskCloseReason, AskRequest, AskState, ShownVia, StoredActor } from "../../lib/core/protocol";

/**
 * Read model of asks and their receipts ([ASK4]; lib/core/protocol/asks.ts `Ask`, db/ask-rows.ts
 * maps it), written by the ingest writer in the same transaction as their events.
 */
export const asks = pgTable(
  "asks",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    spaceId: text("space_id").notNull(),
    runId: text("run_id").notNull(),
    /** The harness (or runner) the answer goes to. */
    harnessId: text("harness_id"),
    actor: jsonb("actor").$type<StoredActor>().notNull(),
    request: jsonb("request").$type<AskRequest>().notNull(),
    /** asked → shown → answered → applied | rejected; or asked/shown → closed */
    state: text("state").$type<AskState>().notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }),
    shownVia: text("shown_via").$type<ShownVia>(),
    shownAt: timestamp("shown_at", { withTimezone: true, mode: "string" }),
    answer: jsonb("answer").$type<AskAnswer>(),
    reason: text("reason"),
    closedReason: text("closed_reason").$type<AskCloseReason>(),
    appliedDefault: text("applied_default"),
    settledSeq: bigint("settled_seq", { mode: "number" }),
    settledAt: timestamp("settled_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [
    index("asks_run_idx").on(t.runId, t.seq),
    // Rollups of time to answer ([ASKR6]): a workspace's asks by when they were asked.
    index("asks_workspace_created_idx").on(t.workspaceId, t.createdAt),
    // The inbox: a workspace's asks waiting for a person, oldest first.
    index("asks_waiting_idx")
      .on(t.workspaceId, t.seq)
      .where(sql`${t.state} in ('asked', 'shown')`),
    // Answers a harness has not yet said it applied: sent again when it (re)connects.
    index("asks_harness_answered_idx")
      .on(t.harnessId, t.seq)
      .where(sql`${t.state} = 'answered'`),
    // Asks waiting past their expiry: closed by Chips ([ASK6]).
    index("asks_expiry_idx")
      .on(t.expiresAt)
      .where(sql`${t.state} in ('asked', 'shown') and ${t.expiresAt} is not null`),
  ],
);

/**
 * A workspace's webhooks for new asks ([ASK7]): Slack-compatible JSON posted to `url` (a
 * secret-ish value: never logged or served whole after it was made). A removed one keeps its
 * row, so its deliveries stay readable.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    name: text("name").notNull(),
    url: text("url").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    removedAt: timestamp("removed_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [index("webhooks_workspace_idx").on(t.workspaceId)],
);

/** One ask's delivery to one webhook ([ASK7]): tried until it is taken or the attempts run out. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    runId: text("run_id").notNull(),
    askId: text("ask_id").notNull(),
    /** The JSON posted, the same bytes on every attempt. */
    payload: text("payload").notNull(),
    /** pending → delivered | failed */
    state: text("state").$type<"pending" | "delivered" | "failed">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** When the next attempt is due (while pending); a claimed attempt pushes it on, so one node takes it. */
    nextAt: timestamp("next_at", { withTimezone: true, mode: "string" }).notNull(),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_once").on(t.webhookId, t.askId),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
    index("webhook_deliveries_due_idx")
      .on(t.nextAt)
      .where(sql`${t.state} = 'pending'`),
  ],
);
