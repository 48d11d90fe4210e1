-- People and roles: a person can be revoked; invites by link carry a role.
ALTER TABLE "persons" ADD COLUMN IF NOT EXISTS "revoked_at" timestamp with time zone;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "invites" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"role" text NOT NULL,
	"single_use" boolean NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "invites_id_key" ON "invites" USING btree ("id");
