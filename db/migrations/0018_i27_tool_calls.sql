-- Tool calls ([TOOL1]-[TOOL6], docs/PROTOCOL.md "Tool calls"): a run's tally of its agent's
-- calls, kept by the ingest writer with the run (null until the first call).
ALTER TABLE "runs" ADD COLUMN IF NOT EXISTS "tools" jsonb;
--> statement-breakpoint
-- The judge asks whether a run has seen a call_id ([TOOL2]): this finds a run's tool events by
-- call_id without walking the run's log. The expression is db/ingest-sql.ts's own.
CREATE INDEX IF NOT EXISTS "events_tool_calls_idx" ON "events" USING btree ("run_id", ((body::jsonb) ->> 'call_id')) WHERE "type" in ('tool.started', 'tool.finished');
