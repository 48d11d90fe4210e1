CREATE TABLE "agents" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"harness_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_workspace_id_id_pk" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "credentials" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"workspace_id" text,
	"subject_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "events" (
	"workspace_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"space_id" text,
	"run_id" text,
	"idempotency_key" text,
	"body_hash" text NOT NULL,
	"body" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	CONSTRAINT "events_workspace_id_seq_pk" PRIMARY KEY("workspace_id","seq")
);
--> statement-breakpoint
CREATE TABLE "harnesses" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "persons" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_events" (
	"run_id" text NOT NULL,
	"sequence" bigint NOT NULL,
	"workspace_id" text NOT NULL,
	"event_id" text NOT NULL,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"payload" jsonb,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "run_events_run_id_sequence_pk" PRIMARY KEY("run_id","sequence")
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"space_id" text NOT NULL,
	"harness_id" text,
	"actor" jsonb,
	"state" text NOT NULL,
	"pending" text,
	"goal" text NOT NULL,
	"goal_from" text,
	"session_ref" text,
	"plan" jsonb NOT NULL,
	"status" jsonb,
	"usage" jsonb,
	"outcome" text,
	"summary" text,
	"started_seq" bigint,
	"last_seq" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spaces" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"seq_head" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "harnesses" ADD CONSTRAINT "harnesses_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "persons" ADD CONSTRAINT "persons_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spaces" ADD CONSTRAINT "spaces_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credentials_subject_idx" ON "credentials" USING btree ("subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "events_id_key" ON "events" USING btree ("id");--> statement-breakpoint
CREATE UNIQUE INDEX "events_idempotency_key" ON "events" USING btree ("workspace_id","idempotency_key") WHERE "events"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "events_space_seq_idx" ON "events" USING btree ("workspace_id","space_id","seq");--> statement-breakpoint
CREATE INDEX "events_run_seq_idx" ON "events" USING btree ("run_id","seq");--> statement-breakpoint
CREATE INDEX "runs_space_idx" ON "runs" USING btree ("workspace_id","space_id","created_at");--> statement-breakpoint
CREATE INDEX "spaces_workspace_idx" ON "spaces" USING btree ("workspace_id");