import type { IncomingEvent, StoredEvent } from "@/lib/core/protocol";
import type { Run } from "@/db/client";
import { readBatch, readsMore, type BatchAsk } from "@/db/ingest-sql";
import { writeBatch, type EventColumns } from "@/db/ingest-write-sql";
import { receiptOf, receiptRow, runOf, runRow } from "@/db/run-rows";
import { askOf as askModel, askRow } from "@/db/ask-rows";
import { decisionOf, decisionRow, roomOf, roomRow } from "@/db/room-rows";
import { firstRevision } from "@/lib/core/projection/room";
import { BatchState, decisionKey } from "./batch-state";
import type { Accepted } from "./apply";
import type { IngestRequest } from "./request";

const uniq = <T>(xs: T[]) => [...new Set(xs)];
const present = <T>(x: T | null | undefined): x is T => x !== null && x !== undefined;
const commandIdOf = (e: { type: string; command_id?: string }) =>
  e.type.startsWith("run.command") ? e.command_id : undefined;
const askIdOf = (e: IncomingEvent) => ("ask_id" in e ? e.ask_id : undefined);

/**
 * What the whole batch needs to know of the store: one pass over its events (a batch is
 * usually one event, and a chain of filters and maps per field cost more than the rest of
 * its judging), each list in the order the events name it, without repeats.
 */
export function askOf(workspaceId: string, reqs: IngestRequest[]): BatchAsk {
  const keys = new Set<string>();
  const ids = new Set<string>();
  const runIds = new Set<string>();
  const spaceIds = new Set<string>();
  const agentIds = new Set<string>();
  const commandIds = new Set<string>();
  const finishing = new Set<string>();
  const roomSpaces = new Set<string>();
  const askIds = new Set<string>();
  const askRuns = new Set<string>();
  const runnerSeqs: BatchAsk["runnerSeqs"] = [];
  const calls: BatchAsk["calls"] = [];
  const decisions: BatchAsk["decisions"] = [];
  // Budgets are judged by a batch that reports usage or starts (queues, assigns) a run ([BUD1]–[BUD3]).
  let budgeted = false;
  for (const r of reqs)
    for (const e of r.events) {
      ids.add(e.id);
      if (present(e.idempotency_key)) keys.add(e.idempotency_key);
      if (present(e.run_id)) runIds.add(e.run_id);
      if (present(e.space_id)) spaceIds.add(e.space_id);
      if (e.actor?.kind === "agent" && present(e.actor.id)) agentIds.add(e.actor.id);
      const command = commandIdOf(e as { type: string; command_id?: string });
      if (present(command)) commandIds.add(command);
      const ask = askIdOf(e);
      if (present(ask)) askIds.add(ask);
      // A run that finishes settles its open commands (a cancel — acked, or of a queued run — finishes its run).
      const finishes =
        e.type === "run.finished" ||
        e.type === "run.command_acked" ||
        (e.type === "run.command" && e.command === "cancel");
      if (finishes && present(e.run_id)) finishing.add(e.run_id);
      // A run's waiting count is folded from all its unsettled asks; a run that finishes settles them ([ASK5]).
      if ((ask !== undefined || finishes) && present(e.run_id)) askRuns.add(e.run_id);
      if (("usage" in e && e.usage) || e.type === "run.started" || e.type === "run.queued" || e.type === "run.assigned")
        budgeted = true;
      if (e.type === "runner.event") runnerSeqs.push({ runId: e.run_id!, sequence: e.sequence });
      else if (e.type === "tool.started" || e.type === "tool.finished")
        calls.push({ runId: e.run_id!, callId: e.call_id });
      else if (e.type === "room.updated" && present(e.space_id)) roomSpaces.add(e.space_id);
      else if (e.type === "decision.recorded" && e.space_id) {
        decisions.push({ spaceId: e.space_id, decisionId: e.decision_id });
        if (e.supersedes) decisions.push({ spaceId: e.space_id, decisionId: e.supersedes });
      }
    }
  return {
    workspaceId,
    keys: [...keys],
    ids: [...ids],
    runIds: [...runIds],
    spaceIds: [...spaceIds],
    agentIds: [...agentIds],
    commandIds: [...commandIds],
    finishing: [...finishing],
    runnerSeqs,
    calls,
    roomSpaces: [...roomSpaces],
    decisions,
    // The UTC day whose budgets the batch is judged against ([BUD2]). The writer stamps its
    // events a moment later: across midnight an event's usage is still added to its own day
    // (lib/server/ingest/budget-rules.ts), only not judged against this one.
    budgetDay: budgeted ? new Date().toISOString().slice(0, 10) : null,
    askIds: [...askIds],
    askRuns: [...askRuns],
  };
}

/**
 * Read what the rules need to know of the store: the batch's state, "gone" when the
 * workspace is, "moved" when another commit came between the read's statements (judge
 * again under the lock).
 */
export async function load(run: Run, ask: BatchAsk): Promise<BatchState | "gone" | "moved"> {
  const { workspaceId, roomSpaces, budgetDay: day } = ask;
  const read = await readBatch(run, ask);
  if (read.head === null) return "gone";
  if (!read.consistent) return "moved";
  const s = new BatchState(read.head);
  for (const [k, v] of read.byKey) s.byKey.set(k, v);
  for (const [k, v] of read.byId) s.byId.set(k, v);
  for (const [k, v] of read.byRunnerSeq) s.byRunnerSeq.set(k, v);
  for (const [k, v] of read.runnerHeads) s.runnerHeads.set(k, v);
  for (const r of read.runs) {
    if (r.workspaceId === workspaceId) s.runs.set(r.id, runOf(r));
    else s.foreignRuns.add(r.id);
  }
  for (const [k, v] of read.agents) s.agents.set(k, v);
  for (const c of read.commands) s.commands.set(c.id, receiptOf(c));
  for (const [k, v] of read.ackBodies) s.ackBodies.set(k, v);
  for (const k of read.calls) s.calls.set(k, true);
  for (const [k, v] of read.spaceHeads) s.spaceHeads.set(k, v);
  // A room nobody edited has no row: it is at revision 0 (rooms of other workspaces are never read).
  for (const id of roomSpaces) if (s.spaceHeads.has(id)) s.rooms.set(id, firstRevision(workspaceId, id));
  for (const r of read.rooms) s.rooms.set(r.spaceId, roomOf(r));
  if (read.budget) {
    s.budgetDay = day;
    for (const b of read.budget.budgets) s.budgets.set(b.subject, b);
    for (const [k, v] of read.budget.spend) s.spend.set(k, v);
    // The runs a budget running out would pause; a run the batch named is the same row.
    for (const r of read.budget.running) if (!s.runs.has(r.id)) s.runs.set(r.id, runOf(r));
    for (const [id, seq] of read.budget.runningSpaces) if (!s.spaceHeads.has(id)) s.spaceHeads.set(id, seq);
  }
  for (const d of read.decisions) s.decisions.set(decisionKey(d.spaceId, d.decisionId), decisionOf(d));
  for (const a of read.asks) {
    if (a.workspaceId === workspaceId) s.asks.set(a.id, askModel(a));
    else s.foreignAsks.add(a.id);
  }
  for (const [k, v] of read.askSettles) s.askSettles.set(k, v);
  return s;
}

/**
 * The new events as the log's columns, straight from the accepted events: no object per
 * event in between (each would be one more container of young strings to scavenge).
 */
function eventColumns(committed: Accepted[]): EventColumns {
  const n = committed.length;
  const cols: EventColumns = {
    seq: new Array<number>(n),
    id: new Array<string>(n),
    type: new Array<string>(n),
    spaceId: new Array<string | null>(n),
    prevSeq: new Array<number | null>(n),
    runId: new Array<string | null>(n),
    idempotencyKey: new Array<string | null>(n),
    bodyHash: new Array<string>(n),
    body: new Array<string>(n),
    ts: new Array<string>(n),
  };
  for (let i = 0; i < n; i++) {
    const { event: e, body, hash, prevSeq } = committed[i];
    cols.seq[i] = e.seq;
    cols.id[i] = e.id;
    cols.type[i] = e.type;
    cols.spaceId[i] = e.space_id ?? null;
    cols.prevSeq[i] = prevSeq;
    cols.runId[i] = e.run_id ?? null;
    cols.idempotencyKey[i] = e.idempotency_key ?? null;
    cols.bodyHash[i] = hash;
    cols.body[i] = body;
    cols.ts[i] = e.ts;
  }
  return cols;
}

/** The workspace's seq head and space heads as this node's last commit to it left them. */
export interface KnownHeads {
  head: number;
  spaces: Map<string, number>;
}

/**
 * The state `load` would read for a batch that needs only its events statement, if the
 * workspace's head is still `known.head` and none of the batch's keys and ids is stored;
 * null when the batch needs more, or names a space `known` lacks. The write checks both
 * assumptions (`absent`), so a wrong one stores nothing and the batch reads after all.
 */
export function assumed(known: KnownHeads, ask: BatchAsk): BatchState | null {
  if (readsMore(ask) || !ask.spaceIds.every((id) => known.spaces.has(id))) return null;
  const s = new BatchState(known.head);
  for (const id of ask.spaceIds) s.spaceHeads.set(id, known.spaces.get(id)!);
  return s;
}

/**
 * Store the batch's events and every read model it touched, in one statement guarded by
 * the head the batch was read at: false (nothing stored) when another commit came between.
 */
export function write(
  run: Run,
  workspaceId: string,
  readHead: number,
  s: BatchState,
  committed: Accepted[],
  absent: { keys: string[]; ids: string[] },
): Promise<boolean> {
  const stored = committed.map((c) => c.event);
  const runnerEvents = stored.filter((e) => e.type === "runner.event") as Extract<
    StoredEvent,
    { type: "runner.event" }
  >[];
  return writeBatch(run, {
    workspaceId,
    readHead,
    head: s.seq,
    events: eventColumns(committed),
    spaceHeads: new Map(uniq(stored.map((e) => e.space_id).filter(present)).map((id) => [id, s.spaceHeads.get(id)!])),
    runs: uniq(stored.map((e) => e.run_id).filter(present))
      .map((id) => s.runs.get(id))
      .filter(present)
      .map(runRow),
    commands: uniq([
      ...stored.map((e) => commandIdOf(e as { type: string; command_id?: string })).filter(present),
      ...s.settled.keys(),
    ])
      .map((id) => s.commands.get(id))
      .filter(present)
      .map(receiptRow),
    rooms: uniq(stored.filter((e) => e.type === "room.updated").map((e) => e.space_id!)).map((id) =>
      roomRow(s.rooms.get(id)!),
    ),
    decisions: uniq(
      stored.flatMap((e) =>
        e.type === "decision.recorded"
          ? [e.decision_id, ...(e.supersedes ? [e.supersedes] : [])].map((d) => decisionKey(e.space_id!, d))
          : [],
      ),
    )
      .map((k) => s.decisions.get(k))
      .filter(present)
      .map(decisionRow),
    runnerEvents: runnerEvents.map((e) => ({
      runId: e.run_id!,
      sequence: e.sequence,
      workspaceId,
      eventId: e.id,
      kind: e.kind,
      message: e.message,
      payload: e.payload ?? null,
      occurredAt: e.occurred_at,
    })),
    asks: [...s.askChanges.keys()].map((id) => askRow(s.asks.get(id)!)),
    usage: [...s.usage].map(([k, u]) => {
      const [harnessId, day] = k.split(" ");
      return { harnessId, day, ...u };
    }),
    agents: new Map(stored.filter((e) => e.actor.kind === "agent").map((e) => [e.actor.id, e.actor.harness_id!])),
    absent,
  });
}
