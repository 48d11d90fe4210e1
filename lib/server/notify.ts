import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";

/** NOTIFY on a Postgres channel: how a node tells the others (revocations, who is in a room). */
export async function notify(database: Database, channel: string, payload: string): Promise<void> {
  await database.query(sql`select pg_notify(${channel}, ${payload})`);
}

/**
 * NOTIFYs on one channel, coalesced: the payloads given within one event-loop turn go out in
 * one statement, one commit for all (a NOTIFY's commit takes PostgreSQL's global notify lock).
 * A node with a thousand rooms open says each room's people every refresh, and a wave of joins
 * says many at once: one round trip and one commit per turn instead of one per room. A batch
 * waits for the one before it, so the other nodes hear a room's lists in the order they were said.
 */
export function coalescedNotify(database: Database, channel: string): (payload: string) => Promise<void> {
  let queued: string[] = [];
  let flush: Promise<void> | null = null;
  let last: Promise<unknown> = Promise.resolve();
  return (payload) => {
    queued.push(payload);
    if (flush) return flush;
    const turn = new Promise<void>((r) => setImmediate(r));
    flush = Promise.all([turn, last.catch(() => {})]).then(async () => {
      const batch = queued;
      queued = [];
      flush = null;
      await database.query(
        sql`select pg_notify(${channel}, p) from json_array_elements_text(${JSON.stringify(batch)}::json) as p`,
      );
    });
    last = flush;
    return flush;
  };
}
