import { index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { created } from "./columns";

/**
 * Runs made from an agent's OpenTelemetry (lib/server/otel/, docs/OTEL.md [OTL4]): which session
 * (or trace, or named run) each belongs to and which of that session's runs it is — a session
 * that goes on after its run finished goes on in the next. Also what the quiet-period sweep
 * walks to finish runs whose telemetry stopped.
 */
export const otelRuns = pgTable(
  "otel_runs",
  {
    runId: text("run_id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    harnessId: text("harness_id").notNull(),
    /** `claude-code:<session.id>`, `codex:<conversation.id>`, `trace:<traceId>`, `run:<run id>`. */
    sessionKey: text("session_key").notNull(),
    segment: integer("segment").notNull(),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex("otel_runs_session_idx").on(t.workspaceId, t.sessionKey, t.segment),
    index("otel_runs_workspace_idx").on(t.workspaceId),
  ],
);

/**
 * Finished runs waiting to go out to CHIPS_OTLP_EXPORT_URL (lib/server/otel/exporter.ts): kept in
 * the database so a restart loses none; a row goes once its run was sent.
 */
export const otlpExports = pgTable(
  "otlp_exports",
  {
    runId: text("run_id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** Not tried again before this (backoff, or a node's claim while it sends). */
    nextAt: timestamp("next_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    lastError: text("last_error"),
    createdAt: created(),
  },
  (t) => [index("otlp_exports_next_idx").on(t.nextAt)],
);
