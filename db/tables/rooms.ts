import type { DecisionStatus, StoredActor } from "../../lib/core/protocol";
import { bigint, date, doublePrecision, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * A room's current intent and outcome (lib/core/protocol/models.ts `RoomRevision`; db/room-rows.ts
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

/** A room's decisions (lib/core/protocol/models.ts `Decision`; db/room-rows.ts maps it), written by the ingest writer. */
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
 * A budget (docs/ROOM-STATE.md [BUD2]): limits for one harness or runner, or for
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
