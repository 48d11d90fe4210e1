import type { Run } from "./client";
import { USAGE_CTE } from "./budget-sql";
import {
  askRows,
  commandRows,
  decisionRows,
  eventsWithKeys,
  num,
  perKey,
  roomRows,
  runnerEventRows,
  runRows,
  type AskRow,
  type CommandRow,
  type DecisionRow,
  type RoomRow,
  type RunnerEventRow,
  type RunRow,
} from "./ingest-rows";

/** The batch's new events as the log stores them: one array per column, all in seq order. */
export interface EventColumns {
  seq: number[];
  id: string[];
  type: string[];
  spaceId: (string | null)[];
  prevSeq: (number | null)[];
  runId: (string | null)[];
  idempotencyKey: (string | null)[];
  bodyHash: string[];
  body: string[];
  ts: string[];
}

/** Everything one batch stores. */
export interface BatchWrite {
  workspaceId: string;
  /** The head the batch was judged against, and the head after it. */
  readHead: number;
  head: number;
  events: EventColumns;
  spaceHeads: Map<string, number>;
  runs: RunRow[];
  commands: CommandRow[];
  runnerEvents: RunnerEventRow[];
  rooms: RoomRow[];
  decisions: DecisionRow[];
  /** Asks and their receipts the batch made or moved ([ASK4]). */
  asks: AskRow[];
  /** Usage to add per harness and UTC day ([BUD1]). */
  usage: { harnessId: string; day: string; tokens: number; micro: number }[];
  /** Agent id → harness id of agents first spoken for ([ENV11]); one already registered keeps its harness. */
  agents: Map<string, string>;
  /**
   * Idempotency keys and event ids the batch was judged assuming none is stored (a batch
   * judged without reading them: lib/server/ingest/writer.ts); the write stores nothing if
   * one is. Empty when the batch read them.
   */
  absent: { keys: string[]; ids: string[] };
}

const whenHeld = `where exists (select from head)`;

// Every part runs only if the counter row still holds the head the batch was judged
// against — and, for a batch judged without reading its keys and ids, while none of them
// is stored: a commit in between (another node's) or a stored key leaves this one storing
// nothing. One statement is atomic by itself, so no explicit transaction is needed. Timestamps travel
// as text: drizzle turns postgres-js's timestamp array serializer off. Two shapes: a
// batch that touches no run read model leaves those parts out (less to plan).
const writeBatchSql = (models: boolean, [keys, ids] = models ? ["$28", "$29"] : ["$18", "$19"]) => `with head as (
    update workspaces set seq_head = $2 where id = $1 and seq_head = $3
      and not exists (${eventsWithKeys("$1", keys)}) and not exists (${perKey(ids, "events", "id = k.key", "id")})
    returning id
  ), appended as (
    insert into events (workspace_id, seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts)
    select $1, seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts::timestamptz
    from unnest($4::bigint[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
      as e(seq, id, type, space_id, prev_seq, run_id, idempotency_key, body_hash, body, ts)
    ${whenHeld}
  ), space_heads as (
    update spaces s set seq_head = h.head from unnest($14::text[], $15::bigint[]) as h(id, head)
    where s.id = h.id and s.workspace_id = $1 and exists (select from head)
  ), new_agents as (
    insert into agents (workspace_id, id, harness_id) select $1, * from unnest($16::text[], $17::text[]) ${whenHeld} on conflict do nothing
  )${
    models
      ? `, run_rows as (
    ${runRows.insertFrom("$18")} ${whenHeld} ${runRows.onConflictReplace("id")}
  ), command_rows as (
    ${commandRows.insertFrom("$19")} ${whenHeld} ${commandRows.onConflictReplace("id")}
  ), runner_rows as (
    ${runnerEventRows.insertFrom("$20")} ${whenHeld}
  ), room_rows as (
    ${roomRows.insertFrom("$21")} ${whenHeld} ${roomRows.onConflictReplace("spaceId")}
  ), decision_rows as (
    ${decisionRows.insertFrom("$22")} ${whenHeld} on conflict (space_id, decision_id) do update set status = excluded.status, superseded_by = excluded.superseded_by, updated_seq = excluded.updated_seq
  ), ask_rows as (
    ${askRows.insertFrom("$27")} ${whenHeld} ${askRows.onConflictReplace("id")}
  ), ${USAGE_CTE("$23", "$24", "$25", "$26")}`
      : ""
  }
  select (select count(*) from head)::int as stored`;
const WRITE_EVENTS = writeBatchSql(false);
const WRITE_ALL = writeBatchSql(true);

/** Store the batch; false (nothing stored) when the workspace's head moved since it was read. */
export async function writeBatch(run: Run, w: BatchWrite): Promise<boolean> {
  const models =
    w.runs.length +
      w.commands.length +
      w.runnerEvents.length +
      w.rooms.length +
      w.decisions.length +
      w.usage.length +
      w.asks.length >
    0;
  const params = [
    w.workspaceId,
    w.head,
    w.readHead,
    w.events.seq,
    w.events.id,
    w.events.type,
    w.events.spaceId,
    w.events.prevSeq,
    w.events.runId,
    w.events.idempotencyKey,
    w.events.bodyHash,
    w.events.body,
    w.events.ts,
    [...w.spaceHeads.keys()],
    [...w.spaceHeads.values()],
    [...w.agents.keys()],
    [...w.agents.values()],
  ];
  const absent = [w.absent.keys, w.absent.ids];
  const [row] = await (models
    ? run<{ stored: number }>(WRITE_ALL, [
        ...params,
        runRows.encode(w.runs),
        commandRows.encode(w.commands),
        runnerEventRows.encode(w.runnerEvents),
        roomRows.encode(w.rooms),
        decisionRows.encode(w.decisions),
        ...usageColumns(w),
        askRows.encode(w.asks),
        ...absent,
      ])
    : run<{ stored: number }>(WRITE_EVENTS, [...params, ...absent]));
  return num(row.stored) === 1;
}

const usageColumns = (w: BatchWrite) => [
  w.usage.map((u) => u.harnessId),
  w.usage.map((u) => u.day),
  w.usage.map((u) => u.tokens),
  w.usage.map((u) => u.micro),
];
