CREATE TABLE "leases" (
	"run_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"runner_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "request" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "runner" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "checkpoint" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "change_set" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "runner_error" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "last_log" text;--> statement-breakpoint
CREATE INDEX "leases_expiry_idx" ON "leases" USING btree ("expires_at");