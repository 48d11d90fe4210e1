-- A room's tasks are its task.saved events folded (lib/core/projection/tasks.ts); this index finds them without walking the room.
CREATE INDEX "events_task_saves_idx" ON "events" USING btree ("workspace_id", "space_id", "seq") WHERE "type" = 'task.saved';
