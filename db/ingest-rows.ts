import { rowCodec } from "./row-codec";
import { asks, commands, decisions, rooms, runnerEvents, runs } from "./schema";

// What the writer's read (db/ingest-sql.ts) and write (db/ingest-write-sql.ts) statements share:
// the read models' row codecs and the one-key-at-a-time lookups.

export const runRows = rowCodec(runs);
export const commandRows = rowCodec(commands);
export const runnerEventRows = rowCodec(runnerEvents);
export const roomRows = rowCodec(rooms);
export const decisionRows = rowCodec(decisions);
export const askRows = rowCodec(asks);

export type RunRow = typeof runs.$inferSelect;
export type CommandRow = typeof commands.$inferSelect;
export type RunnerEventRow = typeof runnerEvents.$inferSelect;
export type RoomRow = typeof rooms.$inferSelect;
export type DecisionRow = typeof decisions.$inferSelect;
export type AskRow = typeof asks.$inferSelect;

export const num = (v: unknown) => Number(v); // int8 is a string on postgres-js, a number on PGlite

/**
 * Rows looked up one key at a time: for each element of the array `keys`, the rows of
 * `from` meeting `where` (which names the element `k.key`). Each lookup is a subquery of
 * its own (LIMIT, or OFFSET 0 where a key has several rows, keeps it from being merged
 * into a join), so its plan is an index probe weighed against a scan of the whole table:
 * however small the table was when a plan was made (a prepared statement may keep a
 * generic plan) or however stale its statistics, no plan scans the table per batch.
 */
export const perKey = (keys: string, from: string, where: string, cols: string, many = false) =>
  `select x.* from unnest(${keys}::text[]) as k(key) cross join lateral (select ${cols} from ${from} where ${where} ${many ? "offset 0" : "limit 1"}) x`;

/**
 * Events of this workspace by idempotency key: probes of the unique index on
 * `workspace_id || ' ' || idempotency_key`, the one index that can answer that expression,
 * so no plan walks the workspace (the planner trap of docs/PERFORMANCE.md;
 * db/migrations/0012_dedupe_key_index.sql).
 */
export const eventsWithKeys = (workspace: string, keys: string) =>
  perKey(
    keys,
    "events",
    `idempotency_key is not null and (workspace_id || ' ' || idempotency_key) = ${workspace} || ' ' || k.key`,
    "idempotency_key, body_hash, body",
  );
