import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";

/** NOTIFY on a Postgres channel: how a node tells the others (revocations, who is in a room). */
export async function notify(database: Database, channel: string, payload: string): Promise<void> {
  await database.query(sql`select pg_notify(${channel}, ${payload})`);
}
