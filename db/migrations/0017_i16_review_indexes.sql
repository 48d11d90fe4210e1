-- The runs page sorted by duration or cost (docs/REVIEW.md [REV1]) walked every run of the
-- workspace and sorted them: no index had the sort key. `npm run bench -- --only review` on
-- 55,000 runs: sort=duration p95 394 ms, a Parallel Seq Scan + top-N sort (docs/PERFORMANCE.md).
-- The expressions are lib/server/queries/review.ts sortKey's own, so the planner can walk them in order.
CREATE INDEX IF NOT EXISTS "run_index_duration_idx" ON "run_index" USING btree ("workspace_id", (coalesce("duration_ms", -1)) DESC, "run_id" DESC);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "run_index_cost_idx" ON "run_index" USING btree ("workspace_id", (coalesce("cost_usd", -1)) DESC, "run_id" DESC);
