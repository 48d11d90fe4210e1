-- Harness budgets (an agent's runs and budget are its harness's).
-- A budget per harness (or runner), or for the whole workspace (subject '*'): limits of
-- tokens and of cost (in micro-dollars, so sums are exact) per UTC day and per month.
CREATE TABLE "budgets" (
	"workspace_id" text NOT NULL,
	"subject" text NOT NULL,
	"tokens_per_day" bigint,
	"tokens_per_month" bigint,
	"micro_usd_per_day" bigint,
	"micro_usd_per_month" bigint,
	"warn_at" double precision NOT NULL,
	"set_by" text NOT NULL,
	"set_at" timestamp with time zone NOT NULL,
	CONSTRAINT "budgets_workspace_id_subject_pk" PRIMARY KEY("workspace_id","subject")
);
--> statement-breakpoint
-- What each harness spent per UTC day, added to by the ingest writer in the statement that
-- stores the usage report (tokens = tokens + delta), so concurrent reports never lose one.
CREATE TABLE "usage_days" (
	"workspace_id" text NOT NULL,
	"harness_id" text NOT NULL,
	"day" date NOT NULL,
	"tokens" bigint NOT NULL,
	"micro_usd" bigint NOT NULL,
	CONSTRAINT "usage_days_workspace_id_harness_id_day_pk" PRIMARY KEY("workspace_id","harness_id","day")
);
--> statement-breakpoint
-- The running runs of a workspace, which a budget that runs out pauses.
CREATE INDEX "runs_running_idx" ON "runs" USING btree ("workspace_id") WHERE "state" = 'running';
