-- The dedupe by idempotency key must be answered by its unique index however stale
-- the statistics are. With a (workspace_id, idempotency_key) index, a planner that thinks the
-- workspace small (it grew since the last ANALYZE; PGlite never analyzes) may probe the
-- workspace's other indexes and filter every row of it per key. An index on the one
-- expression "workspace id, space, key" can only be matched by a query on that expression,
-- and no other index can: the alternative is a sequential scan, which is never cheaper on
-- a grown table. Workspace ids hold no space, so the expression is unique exactly when the pair is.
CREATE UNIQUE INDEX "events_workspace_key" ON "events" USING btree (("workspace_id" || ' ' || "idempotency_key")) WHERE "idempotency_key" is not null;--> statement-breakpoint
DROP INDEX "events_idempotency_key";
