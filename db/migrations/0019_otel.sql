-- Runs made from an agent's OpenTelemetry (docs/OTEL.md [OTL4]): the session (or trace, or named
-- run) each belongs to and which of that session's runs it is.
CREATE TABLE IF NOT EXISTS "otel_runs" (
	"run_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"harness_id" text NOT NULL,
	"session_key" text NOT NULL,
	"segment" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "otel_runs_session_idx" ON "otel_runs" USING btree ("workspace_id", "session_key", "segment");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "otel_runs_workspace_idx" ON "otel_runs" USING btree ("workspace_id");
--> statement-breakpoint
-- Finished runs waiting to go out to CHIPS_OTLP_EXPORT_URL (docs/OTEL.md [OTL7]).
CREATE TABLE IF NOT EXISTS "otlp_exports" (
	"run_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "otlp_exports_next_idx" ON "otlp_exports" USING btree ("next_at");
