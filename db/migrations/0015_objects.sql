-- Artifacts of runner runs kept in the database when several nodes share it:
-- content-addressed per run, `key` = workspace/run/sha256.
CREATE TABLE IF NOT EXISTS "objects" (
	"key" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"run_id" text NOT NULL,
	"sha256" text NOT NULL,
	"bytes" bigint NOT NULL,
	"body" bytea NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "objects_run_idx" ON "objects" USING btree ("run_id");
