import type { Run } from "./client";
import { rowCodec } from "./row-codec";
import { commands, runEvents, runs } from "./schema";

/**
 * The writer's statements (lib/server/ingest/writer.ts). Each has one fixed shape whatever
 * the batch's size — lists travel as array parameters (`unnest`, `= any`) or as one JSON
 * parameter — so each is parsed and planned once per connection, and the reads of a commit
 * go out together, then its writes and COMMIT together.
 */

const runRows = rowCodec(runs);
const commandRows = rowCodec(commands);
const runEventRows = rowCodec(runEvents);
const UPSERT_RUNS = runRows.upsert("id");
const UPSERT_COMMANDS = commandRows.upsert("id");

export type RunRow = typeof runs.$inferSelect;
export type CommandRow = typeof commands.$inferSelect;

/** What a stored event tells a dedupe: the hash it was sent with, its stored JSON, its workspace. */
export interface StoredRef {
  hash: string;
  body: string;
  workspaceId: string;
}

const num = (v: unknown) => Number(v); // int8 is a string on postgres-js, a number on PGlite

/** The workspace's counter row, locked: writers of one workspace take turns, so seq order is commit order. */
export async function lockWorkspace(run: Run, workspaceId: string): Promise<number | null> {
  const [row] = await run<{ seq_head: unknown }>(`select seq_head from workspaces where id = $1 for update`, [workspaceId]);
  return row ? num(row.seq_head) : null;
}

/**
 * Stored events of this workspace by idempotency key: probes of the unique index on
 * `workspace_id || ' ' || idempotency_key`, the one index that can answer this expression,
 * so no plan can trade them for a walk through the whole workspace however stale the
 * statistics (the planner trap of docs/PERFORMANCE.md; db/migrations/0012_dedupe_key_index.sql).
 */
export async function eventsByKey(run: Run, workspaceId: string, keys: string[]): Promise<Map<string, StoredRef>> {
  if (!keys.length) return new Map();
  const rows = await run<{ key: string; hash: string; body: string }>(
    `select idempotency_key as key, body_hash as hash, body from events
     where idempotency_key is not null and (workspace_id || ' ' || idempotency_key) = any($1::text[])`,
    [keys.map((k) => `${workspaceId} ${k}`)],
  );
  return new Map(rows.map((r) => [r.key, { hash: r.hash, body: r.body, workspaceId }]));
}

/** Stored events by id, in any workspace (ids are global: [ENV3]). */
export async function eventsById(run: Run, ids: string[]): Promise<Map<string, StoredRef>> {
  const rows = await run<{ id: string; hash: string; body: string; workspace_id: string }>(
    `select id, body_hash as hash, body, workspace_id from events where id = any($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, { hash: r.hash, body: r.body, workspaceId: r.workspace_id }]));
}

/** Runs by id, in any workspace (the caller tells its own from others'). */
export async function runsById(run: Run, ids: string[]): Promise<RunRow[]> {
  if (!ids.length) return [];
  return (await run(`select ${runRows.columns} from runs where id = any($1::text[])`, [ids])).map(runRows.decode);
}

/** Agent id → harness id, for the agents named ([ENV11]). */
export async function agentOwners(run: Run, workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await run<{ id: string; harness_id: string }>(`select id, harness_id from agents where workspace_id = $1 and id = any($2::text[])`, [
    workspaceId,
    ids,
  ]);
  return new Map(rows.map((r) => [r.id, r.harness_id]));
}

const COMMANDS_NAMED = `workspace_id = $1 and (id = any($2::text[]) or (run_id = any($3::text[]) and receipt in ('accepted', 'delivered')))`;

/** The commands named, and the open commands of the runs given (a run's end settles them). */
export async function commandsOf(run: Run, workspaceId: string, ids: string[], openOfRuns: string[]): Promise<CommandRow[]> {
  if (!ids.length && !openOfRuns.length) return [];
  return (await run(`select ${commandRows.columns} from commands where ${COMMANDS_NAMED}`, [workspaceId, ids, openOfRuns])).map(commandRows.decode);
}

/** The stored ack of each of those commands that has one (a repeated ack replays it). */
export async function ackBodiesOf(run: Run, workspaceId: string, ids: string[], openOfRuns: string[]): Promise<Map<string, string>> {
  if (!ids.length && !openOfRuns.length) return new Map();
  const rows = await run<{ id: string; body: string }>(
    `select c.id, e.body from (select id, ack_seq from commands where ${COMMANDS_NAMED} and ack_seq is not null) c
     join events e on e.workspace_id = $1 and e.seq = c.ack_seq`,
    [workspaceId, ids, openOfRuns],
  );
  return new Map(rows.map((r) => [r.id, r.body]));
}

/** Seq heads of the spaces named and of the spaces of the runs named (run events may leave space_id out). */
export async function spaceHeads(run: Run, workspaceId: string, spaceIds: string[], runIds: string[]): Promise<Map<string, number>> {
  if (!spaceIds.length && !runIds.length) return new Map();
  const rows = await run<{ id: string; seq_head: unknown }>(
    `select id, seq_head from spaces where workspace_id = $1
       and (id = any($2::text[]) or id in (select space_id from runs where workspace_id = $1 and id = any($3::text[])))`,
    [workspaceId, spaceIds, runIds],
  );
  return new Map(rows.map((r) => [r.id, num(r.seq_head)]));
}

/** Stored runner events by (run_id, sequence) ([RN2]), as `${run_id}:${sequence}`. */
export async function runnerEventsBySequence(run: Run, pairs: { runId: string; sequence: number }[]): Promise<Map<string, StoredRef>> {
  if (!pairs.length) return new Map();
  const rows = await run<{ run_id: string; sequence: unknown; hash: string; body: string; workspace_id: string }>(
    `select r.run_id, r.sequence, e.body_hash as hash, e.body, e.workspace_id
     from unnest($1::text[], $2::bigint[]) as k(run_id, sequence)
     join run_events r on r.run_id = k.run_id and r.sequence = k.sequence
     join events e on e.id = r.event_id`,
    [pairs.map((p) => p.runId), pairs.map((p) => p.sequence)],
  );
  return new Map(rows.map((r) => [`${r.run_id}:${num(r.sequence)}`, { hash: r.hash, body: r.body, workspaceId: r.workspace_id }]));
}

/** One new event as the log stores it. */
export interface EventRow {
  seq: number;
  id: string;
  type: string;
  spaceId: string | null;
  prevSeq: number | null;
  runId: string | null;
  idempotencyKey: string | null;
  bodyHash: string;
  body: string;
  ts: string;
}

/**
 * The batch's events, the workspace's new seq head and its spaces' new heads, in one
 * statement (column arrays, so one shape for any number of events). Timestamps travel as
 * text: drizzle turns postgres-js's timestamp array serializer off.
 */
export function appendEvents(run: Run, workspaceId: string, rows: EventRow[], seqHead: number, heads: Map<string, number>): Promise<unknown> {
  const col = <K extends keyof EventRow>(k: K) => rows.map((r) => r[k]);
  return run(
    `with appended as (
       insert into events (workspace_id, seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts)
       select $1, seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts::timestamptz
       from unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
         as e(seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts)
     ), workspace_head as (
       update workspaces set seq_head = $12 where id = $1
     )
     update spaces s set seq_head = h.head from unnest($13::text[], $14::bigint[]) as h(id, head) where s.id = h.id and s.workspace_id = $1`,
    [
      workspaceId,
      col("seq"),
      col("id"),
      col("type"),
      col("spaceId"),
      col("prevSeq"),
      col("runId"),
      col("idempotencyKey"),
      col("bodyHash"),
      col("body"),
      col("ts"),
      seqHead,
      [...heads.keys()],
      [...heads.values()],
    ],
  );
}

export const upsertRuns = (run: Run, rows: RunRow[]) => run(UPSERT_RUNS, [runRows.encode(rows)]);
export const upsertCommands = (run: Run, rows: CommandRow[]) => run(UPSERT_COMMANDS, [commandRows.encode(rows)]);
export const insertRunEvents = (run: Run, rows: (typeof runEvents.$inferSelect)[]) => run(runEventRows.insert, [runEventRows.encode(rows)]);

/** Agents first spoken for in this batch ([ENV11]); one already registered keeps its harness. */
export const registerAgents = (run: Run, workspaceId: string, agents: Map<string, string>) =>
  run(`insert into agents (workspace_id, id, harness_id) select $1, * from unnest($2::text[], $3::text[]) on conflict do nothing`, [
    workspaceId,
    [...agents.keys()],
    [...agents.values()],
  ]);

/** Tell other nodes of a commit (one NOTIFY per transaction: it takes a global lock at commit). */
export const notifyCommit = (run: Run, channel: string, payload: string) => run(`select pg_notify($1, $2)`, [channel, payload]);
