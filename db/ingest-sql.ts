import type { Run } from "./client";
import { rowCodec } from "./row-codec";
import { commands, runEvents, runs } from "./schema";

/**
 * The writer's statements (lib/server/ingest/writer.ts): a commit is one statement that
 * reads everything the rules need, judged in memory, then one statement that writes
 * everything, guarded by the seq head it read. Each has one text whatever the batch's
 * size — lists travel as array parameters, whole read-model rows as one JSON parameter —
 * so each is parsed and planned once per connection.
 */

const runRows = rowCodec(runs);
const commandRows = rowCodec(commands);
const runEventRows = rowCodec(runEvents);

export type RunRow = typeof runs.$inferSelect;
export type CommandRow = typeof commands.$inferSelect;
export type RunEventRow = typeof runEvents.$inferSelect;

/** What a stored event tells a dedupe: the hash it was sent with, its stored JSON, its workspace. */
export interface StoredRef {
  hash: string;
  body: string;
  workspaceId: string;
}

const num = (v: unknown) => Number(v); // int8 is a string on postgres-js, a number on PGlite

/**
 * Events of this workspace by idempotency key ($n: the keys): one probe per key of the
 * unique index on `workspace_id || ' ' || idempotency_key`, the one index that can answer
 * that expression. Each probe is a LIMIT subquery of its own, planned against a scan of
 * the whole table, so however stale the statistics no plan walks the workspace (the planner
 * trap of docs/PERFORMANCE.md; db/migrations/0012_dedupe_key_index.sql).
 */
const eventsWithKeys = (workspace: string, keys: string) =>
  `select e.* from unnest(${keys}::text[]) as k(key) cross join lateral (
     select idempotency_key, body_hash, body from events where idempotency_key is not null and (workspace_id || ' ' || idempotency_key) = ${workspace} || ' ' || k.key limit 1
   ) e`;

/** Stored events of this workspace by idempotency key. */
export async function eventsByKey(run: Run, workspaceId: string, keys: string[]): Promise<Map<string, StoredRef>> {
  if (!keys.length) return new Map();
  const rows = await run<{ idempotency_key: string; body_hash: string; body: string }>(eventsWithKeys("$1", "$2"), [
    workspaceId,
    keys,
  ]);
  return new Map(rows.map((r) => [r.idempotency_key, { hash: r.body_hash, body: r.body, workspaceId }]));
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

/** Lock the workspace's counter row until the transaction ends (the writer's path under contention). */
export const lockWorkspace = (run: Run, workspaceId: string) => run(`select 1 from workspaces where id = $1 for update`, [workspaceId]);

/** What one batch asks of the store. */
export interface BatchAsk {
  workspaceId: string;
  keys: string[];
  ids: string[];
  runIds: string[];
  spaceIds: string[];
  agentIds: string[];
  commandIds: string[];
  /** Runs whose open commands the batch may settle. */
  finishing: string[];
  runnerSeqs: { runId: string; sequence: number }[];
}

/** The store as one batch sees it, read in one snapshot. `head` is null when the workspace is gone. */
export interface BatchRead {
  head: number | null;
  byKey: Map<string, StoredRef>;
  byId: Map<string, StoredRef>;
  /** `${run_id}:${sequence}` of runner events ([RN2]). */
  byRunnerSeq: Map<string, StoredRef>;
  /** The runs named, in any workspace (the caller tells its own from others'). */
  runs: RunRow[];
  agents: Map<string, string>;
  /** The commands named, and the open commands of the `finishing` runs. */
  commands: CommandRow[];
  /** The stored ack of each of those commands that has one (a repeated ack replays it). */
  ackBodies: Map<string, string>;
  /** Seq heads of the spaces named and of the spaces of the runs named (run events may leave space_id out). */
  spaceHeads: Map<string, number>;
}

const COMMANDS_NAMED = `workspace_id = $1 and (id = any($6::text[]) or (run_id = any($7::text[]) and receipt in ('accepted', 'delivered')))`;
const list = (select: string) => `(select coalesce(json_agg(x), '[]') from (${select}) x)`;

// One statement, so one snapshot: every answer is of the same moment as the head it guards.
const READ_BATCH = `select
  (select seq_head from workspaces where id = $1) as head,
  ${list(eventsWithKeys("$1", "$2"))} as by_key,
  ${list(`select id, body_hash, body, workspace_id from events where id = any($3::text[])`)} as by_id,
  ${list(`select ${runRows.jsonColumns} from runs where id = any($4::text[])`)} as runs,
  ${list(`select id, harness_id from agents where workspace_id = $1 and id = any($5::text[])`)} as agents,
  ${list(`select ${commandRows.jsonColumns} from commands where ${COMMANDS_NAMED}`)} as commands,
  ${list(`select c.id, e.body from commands c join events e on e.workspace_id = $1 and e.seq = c.ack_seq
      where c.ack_seq is not null and c.id in (select id from commands where ${COMMANDS_NAMED})`)} as acks,
  ${list(`select id, seq_head from spaces where workspace_id = $1
      and (id = any($8::text[]) or id in (select space_id from runs where workspace_id = $1 and id = any($4::text[])))`)} as spaces,
  ${list(`select r.run_id, r.sequence, e.body_hash, e.body, e.workspace_id
      from unnest($9::text[], $10::bigint[]) as k(run_id, sequence)
      join run_events r on r.run_id = k.run_id and r.sequence = k.sequence
      join events e on e.id = r.event_id`)} as runner`;

type J = Record<string, unknown>;

export async function readBatch(run: Run, a: BatchAsk): Promise<BatchRead> {
  const [row] = await run<Record<string, J[] | unknown>>(READ_BATCH, [
    a.workspaceId,
    a.keys,
    a.ids,
    a.runIds,
    a.agentIds,
    a.commandIds,
    a.finishing,
    a.spaceIds,
    a.runnerSeqs.map((p) => p.runId),
    a.runnerSeqs.map((p) => p.sequence),
  ]);
  const rows = (k: string) => row[k] as J[];
  const ref = (r: J): StoredRef => ({ hash: r.body_hash as string, body: r.body as string, workspaceId: (r.workspace_id as string) ?? a.workspaceId });
  return {
    head: row.head === null ? null : num(row.head),
    byKey: new Map(rows("by_key").map((r) => [r.idempotency_key as string, ref(r)])),
    byId: new Map(rows("by_id").map((r) => [r.id as string, ref(r)])),
    byRunnerSeq: new Map(rows("runner").map((r) => [`${r.run_id}:${num(r.sequence)}`, ref(r)])),
    runs: rows("runs").map(runRows.decode),
    agents: new Map(rows("agents").map((r) => [r.id as string, r.harness_id as string])),
    commands: rows("commands").map(commandRows.decode),
    ackBodies: new Map(rows("acks").map((r) => [r.id as string, r.body as string])),
    spaceHeads: new Map(rows("spaces").map((r) => [r.id as string, num(r.seq_head)])),
  };
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

/** Everything one batch stores. */
export interface BatchWrite {
  workspaceId: string;
  /** The head the batch was judged against, and the head after it. */
  readHead: number;
  head: number;
  events: EventRow[];
  spaceHeads: Map<string, number>;
  runs: RunRow[];
  commands: CommandRow[];
  runEvents: RunEventRow[];
  /** Agent id → harness id of agents first spoken for ([ENV11]); one already registered keeps its harness. */
  agents: Map<string, string>;
  /** Tell other nodes (one NOTIFY per commit, never per event: it takes a global lock at commit). */
  notify: { channel: string; payload: string } | null;
}

const whenHeld = `where exists (select from head)`;

// Every part runs only if the counter row still holds the head the batch was judged
// against: a commit in between (another node's) leaves this one storing nothing. One
// statement is atomic by itself, so no explicit transaction is needed. Timestamps travel
// as text: drizzle turns postgres-js's timestamp array serializer off.
const WRITE_BATCH = `with head as (
    update workspaces set seq_head = $2 where id = $1 and seq_head = $3 returning id
  ), appended as (
    insert into events (workspace_id, seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts)
    select $1, seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts::timestamptz
    from unnest($4::bigint[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
      as e(seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts)
    ${whenHeld}
  ), space_heads as (
    update spaces s set seq_head = h.head from unnest($14::text[], $15::bigint[]) as h(id, head)
    where s.id = h.id and s.workspace_id = $1 and exists (select from head)
  ), run_rows as (
    ${runRows.insertFrom("$16")} ${whenHeld} ${runRows.onConflictReplace("id")}
  ), command_rows as (
    ${commandRows.insertFrom("$17")} ${whenHeld} ${commandRows.onConflictReplace("id")}
  ), runner_rows as (
    ${runEventRows.insertFrom("$18")} ${whenHeld}
  ), new_agents as (
    insert into agents (workspace_id, id, harness_id) select $1, * from unnest($19::text[], $20::text[]) ${whenHeld} on conflict do nothing
  )
  select (select count(*) from head)::int as stored, (select pg_notify($21, $22) from head where $21 <> '') is not null as notified`;

/** Store the batch; false (nothing stored) when the workspace's head moved since it was read. */
export async function writeBatch(run: Run, w: BatchWrite): Promise<boolean> {
  const col = <K extends keyof EventRow>(k: K) => w.events.map((r) => r[k]);
  const [row] = await run<{ stored: number }>(WRITE_BATCH, [
    w.workspaceId,
    w.head,
    w.readHead,
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
    [...w.spaceHeads.keys()],
    [...w.spaceHeads.values()],
    runRows.encode(w.runs),
    commandRows.encode(w.commands),
    runEventRows.encode(w.runEvents),
    [...w.agents.keys()],
    [...w.agents.values()],
    w.notify?.channel ?? "",
    w.notify?.payload ?? "",
  ]);
  return num(row.stored) === 1;
}
