import fs from "node:fs";
import path from "node:path";
import type { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";
import { acquireDirLock, type DirLock } from "./dir-lock";
import { migrate } from "./migrate";
import { resultRows } from "./rows";

/** The one database type the services see: the same on PGlite and on postgres-js. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** Rows of a raw query, whichever driver runs it. */
  query<T = Record<string, unknown>>(text: ReturnType<typeof sql>): Promise<T[]>;
  /**
   * Postgres LISTEN (fan-out between nodes); null on PGlite, which is single-node.
   * `onListen` runs on every (re)connect of the listening connection: notifications sent
   * while it was down are lost, so a listener re-reads what it may have missed.
   */
  listen: ((channel: string, onNotify: (payload: string) => void, onListen?: () => void) => Promise<{ unlisten(): Promise<void> }>) | null;
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

async function openPostgres(url: string, max: number): Promise<Database> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const client = postgres(url, {
    max,
    onnotice: () => {},
    prepare: true,
    // An unreachable database must fail a query in seconds, not after postgres-js's
    // defaults (30 s to connect, reconnect backoff growing to 20 s): the server answers
    // 503 + Retry-After meanwhile and the clients retry (lib/server/storage.ts).
    connect_timeout: 3,
    backoff: () => 0.25,
  });
  const db = drizzle(client, { schema }) as unknown as Db;
  await migrate(db);
  return {
    db,
    kind: "postgres",
    query: async (q) => resultRows(await db.execute(q)),
    listen: async (channel, onNotify, onListen) => {
      const l = await client.listen(channel, onNotify, onListen);
      return { unlisten: () => l.unlisten() };
    },
    close: () => client.end({ timeout: 5 }),
  };
}

async function openPglite(dataDir: string): Promise<Database> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Two processes on one PGlite directory silently lose data: only one may hold it.
  const lock: DirLock = acquireDirLock(dataDir);
  try {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const client = await PGlite.create({ dataDir: path.join(dataDir, "pgdata") });
    const db = drizzle(client, { schema }) as unknown as Db;
    await migrate(db);
    return {
      db,
      kind: "pglite",
      query: async (q) => resultRows(await db.execute(q)),
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
    lock.release();
    throw e;
  }
}
