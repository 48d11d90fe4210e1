-- A room's intent and outcome at its current revision, kept by the ingest writer.
CREATE TABLE "rooms" (
	"space_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"revision" bigint NOT NULL,
	"intent" text NOT NULL,
	"outcome" text NOT NULL,
	"actor" jsonb,
	"ts" timestamp with time zone,
	"seq" bigint
);
--> statement-breakpoint
-- A room's history is its room.updated events: this index finds them without walking the room.
CREATE INDEX "events_room_updates_idx" ON "events" USING btree ("workspace_id", "space_id", "seq") WHERE "type" = 'room.updated';
