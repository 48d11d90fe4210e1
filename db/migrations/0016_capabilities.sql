-- Capabilities ([RUN2]): the commands a run's harness obeys, from its run.started;
-- null (every run before this, and any harness that declares nothing) means all of them.
ALTER TABLE "runs" ADD COLUMN IF NOT EXISTS "commands" jsonb;
