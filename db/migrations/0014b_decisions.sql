-- A room's decisions, kept by the ingest writer.
CREATE TABLE "decisions" (
	"space_id" text NOT NULL,
	"decision_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"title" text NOT NULL,
	"text" text NOT NULL,
	"status" text NOT NULL,
	"supersedes" text,
	"superseded_by" text,
	"actor" jsonb NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"seq" bigint NOT NULL,
	"updated_seq" bigint NOT NULL,
	CONSTRAINT "decisions_space_id_decision_id_pk" PRIMARY KEY("space_id","decision_id")
);
