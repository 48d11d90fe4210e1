-- Asks where people look back (docs/REVIEW.md [ASKR5], [ASKR6]).
-- Rollups of time to answer read a workspace's asks by when they were asked.
CREATE INDEX IF NOT EXISTS "asks_workspace_created_idx" ON "asks" USING btree ("workspace_id", "created_at");
--> statement-breakpoint
-- The review index learnt ask words (`asked:`, `ask:`, `denied:ask`, `expired:ask`): every
-- workspace is indexed again from its first event, so runs indexed before know them too. A
-- round only adds words and rewrites rows from the read models, so indexing twice is harmless.
UPDATE "review_cursor" SET "seq" = 0;
