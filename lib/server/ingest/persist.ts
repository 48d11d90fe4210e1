import type { IncomingEvent, StoredEvent } from "@/lib/protocol";
import type { Run } from "@/db/client";
import * as q from "@/db/ingest-sql";
import type { BatchState } from "./batch-state";
import type { Committed, IngestRequest } from "./writer";

const uniq = <T>(xs: T[]) => [...new Set(xs)];
const present = <T>(x: T | null | undefined): x is T => x !== null && x !== undefined;
const commandIdOf = (e: { type: string; command_id?: string }) => (e.type.startsWith("run.command") ? e.command_id : undefined);

/**
 * Read, for the whole batch at once, what the rules need to know of the store. Every read
 * is issued before any is awaited, so they go out together (behind the workspace's lock,
 * which the caller issued first).
 */
export async function load(run: Run, workspaceId: string, reqs: IngestRequest[], s: BatchState) {
  const all = reqs.flatMap((r) => r.events);
  const keys = uniq(all.map((e) => e.idempotency_key).filter(present));
  const ids = uniq(all.map((e) => e.id));
  const runIds = uniq(all.map((e) => e.run_id).filter(present));
  const spaceIds = uniq(all.map((e) => e.space_id).filter(present));
  const agentIds = uniq(all.map((e) => (e.actor?.kind === "agent" ? e.actor.id : null)).filter(present));
  const commandIds = uniq(all.map((e) => commandIdOf(e as { type: string; command_id?: string })).filter(present));
  // A run that finishes settles its open commands (a cancel's follow-up may finish any run named).
  const finishing = uniq(all.filter((e) => e.type === "run.finished" || e.type === "run.command_acked").map((e) => e.run_id).filter(present));
  const runnerSeqs = (all.filter((e) => e.type === "runner.event") as Extract<IncomingEvent, { type: "runner.event" }>[]).map((e) => ({
    runId: e.run_id!,
    sequence: e.sequence,
  }));

  const [byKey, byId, runRows, agents, commandRows, ackBodies, heads, byRunnerSeq] = await Promise.all([
    q.eventsByKey(run, workspaceId, keys),
    q.eventsById(run, ids),
    q.runsById(run, runIds),
    q.agentOwners(run, workspaceId, agentIds),
    q.commandsOf(run, workspaceId, commandIds, finishing),
    q.ackBodiesOf(run, workspaceId, commandIds, finishing),
    q.spaceHeads(run, workspaceId, spaceIds, runIds),
    q.runnerEventsBySequence(run, runnerSeqs),
  ]);
  for (const [k, v] of byKey) s.byKey.set(k, v);
  for (const [k, v] of byId) s.byId.set(k, v);
  for (const [k, v] of byRunnerSeq) s.byRunnerSeq.set(k, v);
  for (const r of runRows) {
    if (r.workspaceId === workspaceId) s.runs.set(r.id, r);
    else s.foreignRuns.add(r.id);
  }
  for (const [k, v] of agents) s.agents.set(k, v);
  for (const c of commandRows) s.commands.set(c.id, c);
  for (const [k, v] of ackBodies) s.ackBodies.set(k, v);
  for (const [k, v] of heads) s.spaceHeads.set(k, v);
}

/**
 * Issue the batch's writes: its events with the new heads, then every read model it
 * touched. Not awaited here: they go out together, with the COMMIT right behind them.
 */
export function write(run: Run, workspaceId: string, s: BatchState, committed: Committed[], hashes: Map<string, string>): void {
  const stored = committed.map((c) => c.event);
  const heads = new Map(uniq(stored.map((e) => e.space_id).filter(present)).map((id) => [id, s.spaceHeads.get(id)!]));
  void q.appendEvents(
    run,
    workspaceId,
    committed.map(({ event: e, body, prevSeq }) => ({
      seq: e.seq,
      id: e.id,
      type: e.type,
      spaceId: e.space_id ?? null,
      prevSeq,
      runId: e.run_id ?? null,
      idempotencyKey: e.idempotency_key ?? null,
      bodyHash: hashes.get(e.id)!,
      body,
      ts: e.ts,
    })),
    s.seq,
    heads,
  );
  const touchedRuns = uniq(stored.map((e) => e.run_id).filter(present)).map((id) => s.runs.get(id)).filter(present);
  if (touchedRuns.length) void q.upsertRuns(run, touchedRuns);

  const touchedCommands = uniq([...stored.map((e) => commandIdOf(e as { type: string; command_id?: string })).filter(present), ...s.settled.keys()])
    .map((id) => s.commands.get(id))
    .filter(present);
  if (touchedCommands.length) void q.upsertCommands(run, touchedCommands);

  const runnerRows = stored.filter((e) => e.type === "runner.event") as Extract<StoredEvent, { type: "runner.event" }>[];
  if (runnerRows.length) {
    void q.insertRunEvents(
      run,
      runnerRows.map((e) => ({
        runId: e.run_id!,
        sequence: e.sequence,
        workspaceId,
        eventId: e.id,
        kind: e.kind,
        message: e.message,
        payload: e.payload ?? null,
        occurredAt: e.occurred_at,
      })),
    );
  }
  const newAgents = new Map(stored.filter((e) => e.actor.kind === "agent").map((e) => [e.actor.id, e.actor.harness_id!]));
  if (newAgents.size) void q.registerAgents(run, workspaceId, newAgents);
}
