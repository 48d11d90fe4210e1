-- A run's review: its newest verdict and how many annotations it has, folded by
-- the one projection from run.annotated (lib/core/projection/run.ts), written with the run.
ALTER TABLE "runs" ADD COLUMN IF NOT EXISTS "review" jsonb;
