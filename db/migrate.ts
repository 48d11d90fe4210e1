import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { resultRows } from "./rows";

const MIGRATIONS_DIR = path.join(import.meta.dirname, "migrations");
/** Any constant: app nodes starting together take turns on this lock. */
const MIGRATION_LOCK = 72_616_401;

/** Migration files of this build that the database has not applied (readiness: none). */
export async function pendingMigrations(db: PgDatabase<PgQueryResultHKT, Record<string, unknown>>): Promise<string[]> {
  const done = new Set(
    resultRows<{ name: string }>(await db.execute(sql`select name from chips_migrations`)).map((r) => r.name),
  );
  return migrationFiles().filter((f) => !done.has(f));
}

const migrationFiles = () =>
  fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort();

/**
 * Apply `db/migrations/*.sql` (written by drizzle-kit) that have not run yet, in one
 * transaction under an advisory lock, so several nodes can start at once on one Postgres.
 */
export async function migrate(db: PgDatabase<PgQueryResultHKT, Record<string, unknown>>): Promise<string[]> {
  const files = migrationFiles();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(
      sql`create table if not exists chips_migrations (name text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set(
      resultRows<{ name: string }>(await tx.execute(sql`select name from chips_migrations`)).map((r) => r.name),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      const text = fs.readFileSync(path.join(MIGRATIONS_DIR, file), "utf8");
      for (const statement of text.split("--> statement-breakpoint")) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into chips_migrations (name) values (${file})`);
      applied.push(file);
    }
  });
  return applied;
}
