import fs from "node:fs";
import path from "node:path";
import type { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";
import { acquireDirLock } from "./dir-lock";
import { migrate } from "./migrate";
import { PgliteWorkerClient } from "./pglite-worker-client";
import { resultRows } from "./rows";

/** The one database type the services see: the same on PGlite and on postgres-js. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/**
 * One fixed SQL statement (`$1`… parameters, arrays for lists), prepared once per
 * connection. Calls made without awaiting in between go out together (pipelined).
 */
export type Run = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** Rows of a raw query, whichever driver runs it. */
  query<T = Record<string, unknown>>(text: ReturnType<typeof sql>): Promise<T[]>;
  /**
   * A fixed statement outside any transaction. On PostgreSQL these run on connections of
   * their own where plans are kept and sequential scans are ruled out: write them as
   * index lookups (db/ingest-sql.ts).
   */
  run: Run;
  /**
   * A transaction of fixed statements; those `work` issues without awaiting in between go
   * out together. If any statement fails, the transaction is rolled back and `transact`
   * rejects with the first failure (the statements after it fail only because it did).
   */
  transact<T>(work: (run: Run) => Promise<T>): Promise<T>;
  /**
   * Postgres LISTEN (fan-out between nodes); null on PGlite, which is single-node.
   * `onListen` runs on every (re)connect of the listening connection: notifications sent
   * while it was down are lost, so a listener re-reads what it may have missed.
   */
  listen:
    | ((
        channel: string,
        onNotify: (payload: string) => void,
        onListen?: () => void,
      ) => Promise<{ unlisten(): Promise<void> }>)
    | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL when set; else the embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  /** postgres-js pool size. */
  poolSize?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.poolSize ?? 10);
  return openPglite(opts.dataDir);
}

/**
 * The statements `work` issued, each settled to its error or null, so `transact` can wait
 * for all of them and report the first failure. Every promise handed to `work` is marked
 * handled: a write it does not await must not become an unhandled rejection.
 */
function tracked(exec: (text: string, params: unknown[]) => Promise<unknown[]>) {
  const settled: Promise<unknown>[] = [];
  const run: Run = <T>(text: string, params: unknown[] = []) => {
    const p = exec(text, params) as Promise<T[]>;
    settled.push(
      p.then(
        () => null,
        (e: unknown) => e ?? new Error("statement failed"),
      ),
    );
    return p;
  };
  const firstError = async () => (await Promise.all(settled)).find((e) => e !== null) ?? null;
  return { run, firstError };
}

async function openPostgres(url: string, max: number): Promise<Database> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const options = {
    onnotice: () => {},
    prepare: true,
    // An unreachable database must fail a query in seconds, not after postgres-js's
    // defaults (30 s to connect, reconnect backoff growing to 20 s): the server answers
    // 503 + Retry-After meanwhile and the clients retry (lib/server/storage.ts).
    connect_timeout: 3,
    backoff: () => 0.25,
  };
  const client = postgres(url, { ...options, max, connection: { application_name: "chips" } });
  // The fixed statements (`run`, `transact`: the writer's, db/ingest-sql.ts) have
  // connections of their own. Each of those statements is a set of key lookups written
  // for index probes, so there each keeps one plan (no re-planning per batch: planning
  // was most of the read's cost) made with sequential scans ruled out, so a plan made
  // while a table was small cannot keep scanning it as it grows.
  const fixedMax = Math.max(2, Math.ceil(max / 3));
  const fixed = postgres(url, {
    ...options,
    max: fixedMax,
    connection: { application_name: "chips", plan_cache_mode: "force_generic_plan", enable_seqscan: "off" },
  });
  // Dates and times as the text PostgreSQL prints, as drizzle has them read on `client`.
  for (const oid of [1082, 1083, 1114, 1184, 1115, 1182, 1185]) fixed.options.parsers[oid] = (v: string) => v;
  const db: Db = drizzle(client, { schema });
  await migrate(db);
  // Every connection of both pools open before the server says it is ready ([OPS3]):
  // postgres-js opens them on demand, so the first requests after a start paid for the connects
  // and their authentication (room fan-out p99 120-150 ms in the first 2 s, 10 ms after).
  // Queries issued together open a connection each, up to the pool's size.
  await Promise.all([
    ...Array.from({ length: max }, () => client`select 1`),
    ...Array.from({ length: fixedMax }, () => fixed`select 1`),
  ]);
  const unsafe = (c: Pick<typeof client, "unsafe">, text: string, params: unknown[]) =>
    c.unsafe(text, params as never[], { prepare: true }).then((r): unknown[] => r);
  return {
    db,
    kind: "postgres",
    query: async (q) => resultRows(await db.execute(q)),
    run: <T>(text: string, params: unknown[] = []) => unsafe(fixed, text, params) as Promise<T[]>,
    transact: async <T>(work: (run: Run) => Promise<T>) =>
      (
        await fixed.begin(async (tx) => {
          const { run, firstError } = tracked((text, params) => unsafe(tx, text, params));
          const out = await work(run);
          // A statement `work` did not await may have failed: then the COMMIT answered ROLLBACK.
          const failed = await firstError();
          if (failed) throw failed;
          return [out];
        })
      )[0] as T,
    listen: async (channel, onNotify, onListen) => {
      const l = await client.listen(channel, onNotify, onListen);
      return { unlisten: () => l.unlisten() };
    },
    close: async () => {
      await Promise.all([client.end({ timeout: 5 }), fixed.end({ timeout: 5 })]);
    },
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Two processes on one PGlite directory silently lose data: only one may hold it.
  const lock = acquireDirLock(dataDir);
  try {
    const { drizzle } = await import("drizzle-orm/pglite");
    // PGlite runs in a worker thread of this process (it blocked HTTP and sockets for up to
    // 343 ms a batch on the main thread: docs/PERFORMANCE.md); the lock stays with the process.
    const client = await PgliteWorkerClient.open(path.join(dataDir, "pgdata"));
    try {
      const db: Db = drizzle(client as never, { schema });
      await migrate(db);
      return {
        db,
        kind: "pglite",
        query: async (q) => resultRows(await db.execute(q)),
        run: async <T>(text: string, params: unknown[] = []) => (await client.run(text, params)).rows as T[],
        transact: (work) =>
          client.transaction(async (tx) => {
            const { run, firstError } = tracked(async (text, params) => (await tx.run(text, params)).rows);
            const out = await work(run);
            const failed = await firstError();
            if (failed) throw failed;
            return out;
          }),
        listen: null,
        close: async () => {
          try {
            await client.close();
          } finally {
            lock.release();
          }
        },
      };
    } catch (e) {
      await client.close();
      throw e;
    }
  } catch (e) {
    lock.release();
    throw e;
  }
}
