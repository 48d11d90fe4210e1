import { afterAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server";

/**
 * A server that says it is ready has its PostgreSQL connections open ([OPS3],
 * docs/OPERATIONS.md "Health"). postgres-js opens them on demand, so the first requests after a
 * start paid for the connects: room fan-out p99 was 120-150 ms in the first two seconds,
 * 10 ms after. Counted from the database's side (pg_stat_activity), on a connection of the
 * test's own, the moment the real server has started (it serves from then on).
 */
let server: TestServer | null = null;
afterAll(() => server?.close());

describe("[OPS3] a ready server's pool is warm", () => {
  it("[OPS3] right after start, every connection of both pools is open", async () => {
    const pool = 6;
    server = await startTestServer({ pgPoolSize: pool });
    const { default: postgres } = await import("postgres");
    const own = postgres(server.chips.services.config.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      const [row] = await own<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`;
      // The pool for drizzle's queries and the one for the writer's fixed statements (db/client.ts);
      // the LISTEN connection opens on its own and may or may not be up yet.
      const fixed = Math.max(2, Math.ceil(pool / 3));
      expect(row.n).toBeGreaterThanOrEqual(pool + fixed);
    } finally {
      await own.end();
    }
  });
});
