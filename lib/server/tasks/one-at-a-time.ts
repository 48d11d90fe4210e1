import { sql } from "drizzle-orm";
import type { ChipsServices } from "../services";

// Keyed by the services object: one chain per node.
const chains = new WeakMap<object, Promise<unknown>>();

/**
 * [TSK3] A task start reads the room's tasks and runs, judges prerequisites and overlaps, then
 * queues its run: two starts judged at once would each pass on a room without the other's run.
 * So starts are judged and queued one at a time — on this node by one chain of promises (PGlite
 * is a single process: that is all of them), and across the nodes of one PostgreSQL by an
 * advisory lock on the room, taken in a transaction held open until the run is committed.
 * One chain per node, not one per room: a start waiting on another node's lock holds a pooled
 * connection while it waits, and only one at a time can, so the pool is never all taken by
 * waiters while the holder's reads need a connection.
 */
export function oneStartAtATime<T>(
  svc: Pick<ChipsServices, "database" | "db">,
  spaceId: string,
  work: () => Promise<T>,
): Promise<T> {
  const turn = (chains.get(svc) ?? Promise.resolve()).then(() =>
    svc.database.kind === "postgres"
      ? svc.db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`chips task start ${spaceId}`}, 0))`);
          return work();
        })
      : work(),
  );
  chains.set(
    svc,
    turn.catch(() => undefined),
  );
  return turn;
}
