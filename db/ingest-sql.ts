import type { Run } from "./client";
import { readBudgets, type BudgetRead } from "./budget-sql";
import {
  askRows,
  commandRows,
  decisionRows,
  eventsWithKeys,
  num,
  perKey,
  roomRows,
  runRows,
  type AskRow,
  type CommandRow,
  type DecisionRow,
  type RoomRow,
  type RunRow,
} from "./ingest-rows";

/**
 * The writer's statements (lib/server/ingest/writer.ts): a commit reads everything the
 * rules need in one round trip (one or two statements sent together), is judged in memory,
 * then writes everything in one statement guarded by the seq head it read (db/ingest-write-sql.ts). Each statement
 * has one text whatever the batch's size — lists travel as array parameters, whole
 * read-model rows as one JSON parameter — so each is parsed once per connection.
 */

/** What a stored event tells a dedupe: the hash it was sent with, its stored JSON, its workspace. */
export interface StoredRef {
  hash: string;
  body: string;
  workspaceId: string;
}

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
  const rows = await run<{ id: string; harness_id: string }>(
    perKey("$2", "agents", "workspace_id = $1 and id = k.key", "id, harness_id"),
    [workspaceId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.harness_id]));
}

/** Lock the workspace's counter row until the transaction ends (the writer's path under contention). */
export const lockWorkspace = (run: Run, workspaceId: string) =>
  run(`select 1 from workspaces where id = $1 for update`, [workspaceId]);

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
  /** Tool calls the batch's tool events name ([TOOL2]). */
  calls: { runId: string; callId: string }[];
  /** Spaces whose room state (intent, outcome, revision) the batch's events judge or change. */
  roomSpaces: string[];
  /** Decisions the batch's events name (recorded, superseded): their room and id. */
  decisions: { spaceId: string; decisionId: string }[];
  /** The UTC day whose budgets and spend the batch judges against, or null when it reports no usage and starts no run. */
  budgetDay: string | null;
  /** Asks the batch's events name ([ASK1]–[ASK6]). */
  askIds: string[];
  /** Runs whose asks not yet settled the batch may change (an ask event, a run finishing). */
  askRuns: string[];
}

/** The store as one batch sees it. `head` is null when the workspace is gone. */
export interface BatchRead {
  head: number | null;
  /** False when a commit fell between the snapshots of the batch's read statements. */
  consistent: boolean;
  byKey: Map<string, StoredRef>;
  byId: Map<string, StoredRef>;
  /** `${run_id}:${sequence}` of runner events ([RN2]). */
  byRunnerSeq: Map<string, StoredRef>;
  /** Run id → the highest runner event sequence stored for it, for the runs the batch's runner events name ([RN2]). */
  runnerHeads: Map<string, number>;
  /** The runs named, in any workspace (the caller tells its own from others'). */
  runs: RunRow[];
  agents: Map<string, string>;
  /** The commands named, and the open commands of the `finishing` runs. */
  commands: CommandRow[];
  /** The stored ack of each of those commands that has one (a repeated ack replays it). */
  ackBodies: Map<string, string>;
  /** `${run_id} ${call_id}` of the calls named that the run's log already holds ([TOOL2]). */
  calls: Set<string>;
  /** Seq heads of the spaces named and of the spaces of the runs named (run events may leave space_id out). */
  spaceHeads: Map<string, number>;
  /** The `rooms` rows of the room spaces asked for (a room nobody edited has none). */
  rooms: RoomRow[];
  decisions: DecisionRow[];
  budget: BudgetRead | null;
  /** The asks named (in any workspace: the caller tells its own from others'), and the unsettled asks of `askRuns`. */
  asks: AskRow[];
  /** The stored `run.answer_applied` or `run.ask_closed` of each of those asks that has one (a repeat replays it). */
  askSettles: Map<string, string>;
}

const list = (select: string) => `(select coalesce(json_agg(x), '[]') from (${select}) x)`;
const HEAD = `(select seq_head from workspaces where id = $1) as head`;

// A batch's reads are one or two statements, each one snapshot with the workspace's head
// in it: the events and spaces any batch needs, and the run read models only for a batch
// that names a run, an agent or a command (fewer subqueries to plan for the common one).
const READ_EVENTS = `select ${HEAD},
  ${list(eventsWithKeys("$1", "$2"))} as by_key,
  ${list(perKey("$3", "events", "id = k.key", "id, body_hash, body, workspace_id"))} as by_id,
  ${list(perKey("$4", "spaces", "id = k.key and workspace_id = $1", "id, seq_head"))} as spaces`;

const READ_MODELS = `with named_runs as (
    ${perKey("$2", "runs", "id = k.key", runRows.jsonColumns)}
  ), named_asks as (
    ${perKey("$11", "asks", "id = k.key", askRows.jsonColumns)}
    union
    ${perKey("$12", "asks", "run_id = k.key and workspace_id = $1 and state in ('asked', 'shown', 'answered')", askRows.jsonColumns, true)}
  ), named_commands as (
    ${perKey("$4", "commands", "id = k.key and workspace_id = $1", commandRows.jsonColumns)}
    union
    ${perKey("$5", "commands", "run_id = k.key and workspace_id = $1 and receipt in ('accepted', 'delivered')", commandRows.jsonColumns, true)}
  )
  select ${HEAD},
  ${list(`select * from named_runs`)} as runs,
  ${list(`select s.id, s.seq_head from named_runs r cross join lateral (select id, seq_head from spaces where id = r.space_id and workspace_id = $1 limit 1) s where r.workspace_id = $1`)} as spaces,
  ${list(perKey("$3", "agents", "workspace_id = $1 and id = k.key", "id, harness_id"))} as agents,
  ${list(`select * from named_commands`)} as commands,
  ${list(`select c.id, e.body from named_commands c cross join lateral (select body from events where workspace_id = $1 and seq = c.ack_seq limit 1) e`)} as acks,
  ${list(`select k.run_id, k.sequence, e.body_hash, e.body, e.workspace_id from unnest($6::text[], $7::bigint[]) as k(run_id, sequence)
      cross join lateral (select event_id from run_events where run_id = k.run_id and sequence = k.sequence limit 1) r
      cross join lateral (select body_hash, body, workspace_id from events where id = r.event_id limit 1) e`)} as runner,
  ${list(`select k.run_id, k.call_id from unnest($8::text[], $9::text[]) as k(run_id, call_id)
      cross join lateral (select 1 from events where run_id = k.run_id and type in ('tool.started', 'tool.finished') and ((body::jsonb) ->> 'call_id') = k.call_id limit 1) e`)} as calls,
  ${list(`select k.key as run_id, h.sequence from unnest($10::text[]) as k(key)
      cross join lateral (select sequence from run_events where run_id = k.key order by sequence desc limit 1) h`)} as runner_heads,
  ${list(`select * from named_asks`)} as asks,
  ${list(`select a.id, e.body from named_asks a cross join lateral (select body from events where workspace_id = $1 and seq = a.settled_seq limit 1) e where a.workspace_id = $1`)} as ask_settles`;

// Room state, read only for a batch that judges or changes it.
const READ_ROOMS = `select ${HEAD},
  ${list(perKey("$2", "rooms", "space_id = k.key and workspace_id = $1", roomRows.jsonColumns))} as rooms,
  ${list(`select d.* from unnest($3::text[], $4::text[]) as k(space_id, decision_id)
      cross join lateral (select ${decisionRows.jsonColumns} from decisions where space_id = k.space_id and decision_id = k.decision_id and workspace_id = $1 limit 1) d`)} as decisions`;

type J = Record<string, unknown>;

/** Whether a batch names a run read model, an agent, a command or an ask: the READ_MODELS statement. */
const namesModels = (a: BatchAsk) =>
  a.runIds.length +
    a.agentIds.length +
    a.commandIds.length +
    a.finishing.length +
    a.runnerSeqs.length +
    a.askIds.length +
    a.askRuns.length >
  0;

/** Whether a batch's read needs more than its events statement (the run read models, rooms, budgets). */
export const readsMore = (a: BatchAsk) =>
  namesModels(a) || a.roomSpaces.length + a.decisions.length > 0 || a.budgetDay !== null;

/** The store as the batch sees it: its read statements go out together. */
export async function readBatch(run: Run, a: BatchAsk): Promise<BatchRead> {
  const needsModels = namesModels(a);
  const [[ev], models, room, budget] = await Promise.all([
    run<J>(READ_EVENTS, [a.workspaceId, a.keys, a.ids, a.spaceIds]),
    needsModels
      ? run<J>(READ_MODELS, [
          a.workspaceId,
          a.runIds,
          a.agentIds,
          a.commandIds,
          a.finishing,
          a.runnerSeqs.map((p) => p.runId),
          a.runnerSeqs.map((p) => p.sequence),
          a.calls.map((c) => c.runId),
          a.calls.map((c) => c.callId),
          [...new Set(a.runnerSeqs.map((p) => p.runId))],
          a.askIds,
          a.askRuns,
        ]).then((r) => r[0])
      : null,
    a.roomSpaces.length + a.decisions.length
      ? run<J>(READ_ROOMS, [
          a.workspaceId,
          a.roomSpaces,
          a.decisions.map((d) => d.spaceId),
          a.decisions.map((d) => d.decisionId),
        ]).then((r) => r[0])
      : null,
    a.budgetDay ? readBudgets(run, a.workspaceId, a.budgetDay, true) : null,
  ]);
  const rows = (row: J | null, k: string) => (row ? (row[k] as J[]) : []);
  const ref = (r: J): StoredRef => ({
    hash: r.body_hash as string,
    body: r.body as string,
    workspaceId: (r.workspace_id as string) ?? a.workspaceId,
  });
  const head = ev.head === null ? null : num(ev.head);
  return {
    head,
    consistent:
      head === null ||
      ((!models || num(models.head) === head) &&
        (!room || num(room.head) === head) &&
        (!budget || budget.head === head)),
    byKey: new Map(rows(ev, "by_key").map((r) => [r.idempotency_key as string, ref(r)])),
    byId: new Map(rows(ev, "by_id").map((r) => [r.id as string, ref(r)])),
    byRunnerSeq: new Map(rows(models, "runner").map((r) => [`${r.run_id}:${num(r.sequence)}`, ref(r)])),
    runnerHeads: new Map(rows(models, "runner_heads").map((r) => [r.run_id as string, num(r.sequence)])),
    runs: rows(models, "runs").map(runRows.decode),
    agents: new Map(rows(models, "agents").map((r) => [r.id as string, r.harness_id as string])),
    commands: rows(models, "commands").map(commandRows.decode),
    ackBodies: new Map(rows(models, "acks").map((r) => [r.id as string, r.body as string])),
    calls: new Set(rows(models, "calls").map((r) => `${r.run_id} ${r.call_id}`)),
    spaceHeads: new Map(
      [...rows(ev, "spaces"), ...rows(models, "spaces")].map((r) => [r.id as string, num(r.seq_head)]),
    ),
    rooms: rows(room, "rooms").map(roomRows.decode),
    decisions: rows(room, "decisions").map(decisionRows.decode),
    budget,
    asks: rows(models, "asks").map(askRows.decode),
    askSettles: new Map(rows(models, "ask_settles").map((r) => [r.id as string, r.body as string])),
  };
}
