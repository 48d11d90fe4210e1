CREATE TABLE "commands" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"run_id" text NOT NULL,
	"harness_id" text,
	"command" text NOT NULL,
	"text" text,
	"person_id" text NOT NULL,
	"receipt" text NOT NULL,
	"reason" text,
	"seq" bigint NOT NULL,
	"ack_seq" bigint,
	"created_at" timestamp with time zone NOT NULL,
	"delivered_at" timestamp with time zone,
	"acked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "commands_run_idx" ON "commands" USING btree ("run_id","seq");--> statement-breakpoint
CREATE INDEX "commands_harness_open_idx" ON "commands" USING btree ("harness_id","receipt");