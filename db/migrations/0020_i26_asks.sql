-- Asking people ([ASK1]-[ASK6], docs/PROTOCOL.md): each ask and its receipt, written by the
-- ingest writer with its events (db/tables/asks.ts); a run counts its asks waiting for a person.
CREATE TABLE IF NOT EXISTS "asks" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"space_id" text NOT NULL,
	"run_id" text NOT NULL,
	"harness_id" text,
	"actor" jsonb NOT NULL,
	"request" jsonb NOT NULL,
	"state" text NOT NULL,
	"seq" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"shown_via" text,
	"shown_at" timestamp with time zone,
	"answer" jsonb,
	"reason" text,
	"closed_reason" text,
	"applied_default" text,
	"settled_seq" bigint,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "asks_run_idx" ON "asks" USING btree ("run_id", "seq");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "asks_waiting_idx" ON "asks" USING btree ("workspace_id", "seq") WHERE "state" in ('asked', 'shown');
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "asks_harness_answered_idx" ON "asks" USING btree ("harness_id", "seq") WHERE "state" = 'answered';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "asks_expiry_idx" ON "asks" USING btree ("expires_at") WHERE "state" in ('asked', 'shown') and "expires_at" is not null;
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN IF NOT EXISTS "asks_open" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN IF NOT EXISTS "waiting_since" timestamp with time zone;
