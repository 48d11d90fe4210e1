-- Tokens one by one: each credential gets a public id (to list and revoke it alone,
-- never by its hash) and when it was last used; sessions too.
ALTER TABLE "credentials" ADD COLUMN IF NOT EXISTS "id" text;
--> statement-breakpoint
UPDATE "credentials" SET "id" = 'tok_0' || upper(substr(md5("token_hash"), 1, 25)) WHERE "id" IS NULL;
--> statement-breakpoint
ALTER TABLE "credentials" ALTER COLUMN "id" SET NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "credentials_id_key" ON "credentials" USING btree ("id");
--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN IF NOT EXISTS "last_used_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN IF NOT EXISTS "last_used_at" timestamp with time zone;
