-- Rollups by tool ([TOOL6], docs/REVIEW.md): one row per tool call, kept by the review
-- indexer's rounds with run_index (lib/server/review/indexer.ts).
CREATE TABLE IF NOT EXISTS "tool_call_index" (
	"run_id" text NOT NULL,
	"call_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"tool" text,
	"outcome" text,
	"duration_ms" bigint,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "tool_call_index_run_id_call_id_pk" PRIMARY KEY("run_id","call_id")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "tool_call_index_tool_idx" ON "tool_call_index" USING btree ("workspace_id","tool","started_at");
