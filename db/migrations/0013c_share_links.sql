-- Share links: a read-only link to one run, optionally a seq range, with an
-- expiry. Only the token's SHA-256 is stored; every open is logged.
CREATE TABLE IF NOT EXISTS "share_links" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"workspace_id" text NOT NULL,
	"run_id" text NOT NULL,
	"from_seq" bigint,
	"to_seq" bigint,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoked_by" text
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "share_links_token_key" ON "share_links" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "share_links_workspace_idx" ON "share_links" USING btree ("workspace_id", "created_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "share_opens" (
	"share_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"address" text,
	"user_agent" text
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "share_opens_share_idx" ON "share_opens" USING btree ("share_id", "opened_at");
