-- Review of past runs (docs/REVIEW.md): the review index of each run (facets and
-- search words, kept after commit by lib/server/review/indexer.ts), how far each workspace's
-- log is in it, and people's saved views of the runs page.
CREATE TABLE IF NOT EXISTS "run_index" (
	"run_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"space_id" text NOT NULL,
	"state" text NOT NULL,
	"outcome" text,
	"goal" text NOT NULL,
	"goal_from" text,
	"harness_id" text,
	"agent" text,
	"person_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"duration_ms" bigint,
	"steps_done" integer NOT NULL,
	"steps_planned" integer NOT NULL,
	"tokens" bigint,
	"cost_usd" double precision,
	"files" integer,
	"additions" integer,
	"deletions" integer,
	"failed_checks" integer,
	"verdict" text,
	"annotations" integer DEFAULT 0 NOT NULL,
	"last_seq" bigint NOT NULL,
	"doc" tsvector NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "run_index_recent_idx" ON "run_index" USING btree ("workspace_id", "created_at" DESC, "run_id" DESC);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "run_index_doc_idx" ON "run_index" USING gin ("doc");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "review_cursor" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "saved_views" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"person_id" text NOT NULL,
	"name" text NOT NULL,
	"query" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "saved_views_person_idx" ON "saved_views" USING btree ("person_id", "created_at");
