import { and, eq, getTableColumns, inArray, or, sql, type Table } from "drizzle-orm";
import type { IncomingEvent, StoredEvent } from "@/lib/protocol";
import type { Db } from "@/db/client";
import { agents, commands, events, runEvents, runs, spaces, workspaces } from "@/db/schema";
import { receiptOf, receiptRow, runOf, runRow } from "@/db/run-rows";
import type { BatchState } from "./batch-state";
import type { Committed, IngestRequest } from "./writer";

const uniq = <T>(xs: T[]) => [...new Set(xs)];
const present = <T>(x: T | null | undefined): x is T => x !== null && x !== undefined;
const commandIdOf = (e: { type: string; command_id?: string }) => (e.type.startsWith("run.command") ? e.command_id : undefined);

/** Read, for the whole batch at once, what the rules need to know of the store. */
export async function load(tx: Db, workspaceId: string, reqs: IngestRequest[], s: BatchState) {
  const all = reqs.flatMap((r) => r.events);
  const keys = uniq(all.map((e) => e.idempotency_key).filter(present));
  const ids = uniq(all.map((e) => e.id));
  const runIds = uniq(all.map((e) => e.run_id).filter(present));
  const spaceIds = uniq(all.map((e) => e.space_id).filter(present));
  const agentIds = uniq(all.map((e) => (e.actor?.kind === "agent" ? e.actor.id : null)).filter(present));
  const commandIds = uniq(all.map((e) => commandIdOf(e as { type: string; command_id?: string })).filter(present));
  // A run that finishes settles its open commands (a cancel — acked, or of a queued run — finishes its run).
  const finishing = uniq(all.filter((e) => e.type === "run.finished" || e.type === "run.command_acked" || (e.type === "run.command" && e.command === "cancel")).map((e) => e.run_id).filter(present));
  const runnerSeqs = all.filter((e) => e.type === "runner.event") as Extract<IncomingEvent, { type: "runner.event" }>[];

  const cols = { hash: events.bodyHash, body: events.body, workspaceId: events.workspaceId, key: events.idempotencyKey, id: events.id };
  const known = (r: { hash: string; body: string; workspaceId: string }) => ({ hash: r.hash, body: r.body, workspaceId: r.workspaceId });
  const [byKey, byId, runRows, agentRows, commandRows] = await Promise.all([
    keys.length ? tx.select(cols).from(events).where(and(eq(events.workspaceId, workspaceId), inArray(events.idempotencyKey, keys))) : [],
    tx.select(cols).from(events).where(inArray(events.id, ids)),
    runIds.length ? tx.select().from(runs).where(inArray(runs.id, runIds)) : [],
    agentIds.length
      ? tx.select({ id: agents.id, harnessId: agents.harnessId }).from(agents).where(and(eq(agents.workspaceId, workspaceId), inArray(agents.id, agentIds)))
      : [],
    commandIds.length || finishing.length
      ? tx
          .select()
          .from(commands)
          .where(
            and(
              eq(commands.workspaceId, workspaceId),
              or(
                commandIds.length ? inArray(commands.id, commandIds) : sql`false`,
                finishing.length ? and(inArray(commands.runId, finishing), inArray(commands.receipt, ["accepted", "delivered"])) : sql`false`,
              ),
            ),
          )
      : [],
  ]);
  for (const r of byKey) s.byKey.set(r.key!, known(r));
  for (const r of byId) s.byId.set(r.id, known(r));
  for (const r of runRows) {
    if (r.workspaceId === workspaceId) s.runs.set(r.id, runOf(r));
    else s.foreignRuns.add(r.id);
  }
  for (const r of agentRows) s.agents.set(r.id, r.harnessId);
  for (const r of commandRows) s.commands.set(r.id, receiptOf(r));

  // The spaces named, and those of the runs named (run events may leave space_id out).
  const allSpaces = uniq([...spaceIds, ...runRows.filter((r) => r.workspaceId === workspaceId).map((r) => r.spaceId)]);
  const acked = commandRows.filter((c) => c.ackSeq !== null).map((c) => c.ackSeq!);
  const [spaceRows, ackRows] = await Promise.all([
    allSpaces.length
      ? tx.select({ id: spaces.id, head: spaces.seqHead }).from(spaces).where(and(eq(spaces.workspaceId, workspaceId), inArray(spaces.id, allSpaces)))
      : [],
    acked.length ? tx.select({ seq: events.seq, body: events.body }).from(events).where(and(eq(events.workspaceId, workspaceId), inArray(events.seq, acked))) : [],
  ]);
  for (const r of spaceRows) s.spaceHeads.set(r.id, r.head);
  const ackBySeq = new Map(ackRows.map((r) => [r.seq, r.body]));
  for (const c of commandRows) if (c.ackSeq !== null && ackBySeq.has(c.ackSeq)) s.ackBodies.set(c.id, ackBySeq.get(c.ackSeq)!);

  if (runnerSeqs.length) {
    const rows = await tx
      .select({ runId: runEvents.runId, sequence: runEvents.sequence, hash: events.bodyHash, body: events.body, workspaceId: events.workspaceId })
      .from(runEvents)
      .innerJoin(events, eq(events.id, runEvents.eventId))
      .where(sql`(${runEvents.runId}, ${runEvents.sequence}) in (${sql.join(
        runnerSeqs.map((e) => sql`(${e.run_id!}, ${e.sequence})`),
        sql`, `,
      )})`);
    for (const r of rows) s.byRunnerSeq.set(`${r.runId}:${r.sequence}`, known(r));
  }
}

/** Insert the batch's events and bring every read model it touched up to date. */
export async function write(tx: Db, workspaceId: string, s: BatchState, committed: Committed[], hashes: Map<string, string>) {
  const stored = committed.map((c) => c.event);
  await tx.insert(events).values(
    committed.map(({ event: e, body, prevSeq }) => ({
      workspaceId,
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
  );
  await tx.update(workspaces).set({ seqHead: s.seq }).where(eq(workspaces.id, workspaceId));
  for (const space of uniq(stored.map((e) => e.space_id).filter(present))) {
    await tx.update(spaces).set({ seqHead: s.spaceHeads.get(space)! }).where(eq(spaces.id, space));
  }
  const touchedRuns = uniq(stored.map((e) => e.run_id).filter(present)).map((id) => s.runs.get(id)).filter(present);
  if (touchedRuns.length) await tx.insert(runs).values(touchedRuns.map(runRow)).onConflictDoUpdate({ target: runs.id, set: upsertSet(runs) });

  const touchedCommands = uniq([...stored.map((e) => commandIdOf(e as { type: string; command_id?: string })).filter(present), ...s.settled.keys()])
    .map((id) => s.commands.get(id))
    .filter(present);
  if (touchedCommands.length) await tx.insert(commands).values(touchedCommands.map(receiptRow)).onConflictDoUpdate({ target: commands.id, set: upsertSet(commands) });

  const runnerRows = stored.filter((e) => e.type === "runner.event") as Extract<StoredEvent, { type: "runner.event" }>[];
  if (runnerRows.length) {
    await tx.insert(runEvents).values(
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
  if (newAgents.size) {
    await tx
      .insert(agents)
      .values([...newAgents].map(([id, harnessId]) => ({ workspaceId, id, harnessId })))
      .onConflictDoNothing();
  }
}

/** Every column but the key takes the new row's value. */
function upsertSet(table: Table) {
  return Object.fromEntries(
    Object.entries(getTableColumns(table))
      .filter(([k]) => k !== "id")
      .map(([k, c]) => [k, sql.raw(`excluded."${c.name}"`)]),
  );
}
