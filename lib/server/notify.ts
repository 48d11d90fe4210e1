import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";

// A notifying transaction holds PostgreSQL's one global notify lock from its pre-commit until
// its commit is done — through the commit record's WAL flush, when it wrote anything else — so
// notifying commits that store rows run one at a time across the whole cluster, with no group
// commit. These statements only notify: a transaction that wrote no WAL before its commit
// record does not wait for a flush (300 of them in a row: one WAL sync), so the lock is held
// for the queue append alone, and nothing stored waits on it.

/** NOTIFY on a Postgres channel: how a node tells the others (revocations, who is in a room). */
export async function notify(database: Database, channel: string, payload: string): Promise<void> {
  await database.query(sql`select pg_notify(${channel}, ${payload})`);
}

/** One fixed statement, prepared once a connection: a node sends it hundreds of times a second. */
const NOTIFY_EACH = "select pg_notify($1, p) from json_array_elements_text($2::text::json) as p";

/**
 * NOTIFYs on one channel, coalesced: the payloads given within one event-loop turn go out in
 * one statement, one commit for all. A node with a thousand rooms open says each room's people
 * every refresh, a wave of joins says many at once, a busy node commits to many workspaces a
 * turn: one round trip and one commit per turn instead of one each. A batch waits for the one
 * before it, so the other nodes hear this node's payloads in the order they were given.
 */
export class CoalescedNotify {
  private queued: string[] = [];
  private flush: Promise<void> | null = null;
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private database: Database,
    private channel: string,
  ) {}

  /** Queue `payload`; resolves when the statement that sends it has, rejects if it failed. */
  send(payload: string): Promise<void> {
    this.queued.push(payload);
    if (this.flush) return this.flush;
    const turn = new Promise<void>((r) => setImmediate(r));
    const flush = Promise.all([turn, this.last.catch(() => {})]).then(async () => {
      const batch = this.queued;
      this.queued = [];
      this.flush = null;
      await this.database.run(NOTIFY_EACH, [this.channel, JSON.stringify(batch)]);
    });
    this.flush = flush;
    this.last = flush;
    return flush;
  }

  /** Resolves once what was given so far has been sent (or failed): a stopping node waits for it. */
  async idle(): Promise<void> {
    while (this.flush) await this.flush.catch(() => {});
    await this.last.catch(() => {});
  }
}
