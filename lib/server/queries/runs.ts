import { and, asc, eq, gt, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { commands, events, runnerEvents, runs } from "@/db/schema";
import { receiptOf, runOf } from "@/db/run-rows";
import type { Receipt, Run } from "@/lib/core/protocol";

/** Events of a workspace after a seq, ascending; optionally one space's only. */
export async function eventsAfter(db: Db, workspaceId: string, after: number, limit: number, spaceId?: string) {
  const where = spaceId
    ? and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), gt(events.seq, after))
    : and(eq(events.workspaceId, workspaceId), gt(events.seq, after));
  const rows = await db
    .select({ seq: events.seq, body: events.body })
    .from(events)
    .where(where)
    .orderBy(asc(events.seq))
    .limit(limit);
  return { bodies: rows.map((r) => r.body), nextAfter: rows.length ? rows[rows.length - 1].seq : after };
}

/** A run's read model, or null. */
export async function getRun(db: Db, runId: string): Promise<Run | null> {
  const [r] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  return r ? runOf(r) : null;
}

/** The runs of a workspace (or one room), oldest first. */
export async function listRuns(db: Db, workspaceId: string, spaceId?: string): Promise<Run[]> {
  const where = spaceId
    ? and(eq(runs.workspaceId, workspaceId), eq(runs.spaceId, spaceId))
    : eq(runs.workspaceId, workspaceId);
  return (await db.select().from(runs).where(where).orderBy(asc(runs.createdAt)).limit(1000)).map(runOf);
}

/** Receipts of runs' commands, oldest first: a run's (the commands endpoint, the CLI's wait) or a room's. */
export async function receiptsOf(db: Db, runIds: string[]): Promise<Receipt[]> {
  if (!runIds.length) return [];
  const rows = await db
    .select()
    .from(commands)
    .where(inArray(commands.runId, runIds))
    .orderBy(asc(commands.seq))
    .limit(5000);
  return rows.map(receiptOf);
}

/** A run's runner events after a sequence number, ascending, at most 1,000 ([RN2]). */
export async function runnerEventsAfter(db: Db, runId: string, after: number) {
  const rows = await db
    .select()
    .from(runnerEvents)
    .where(and(eq(runnerEvents.runId, runId), gt(runnerEvents.sequence, after)))
    .orderBy(asc(runnerEvents.sequence))
    .limit(1000);
  return rows.map((r) => ({
    sequence: r.sequence,
    kind: r.kind,
    message: r.message,
    payload: r.payload,
    occurred_at: new Date(r.occurredAt).toISOString(),
    event_id: r.eventId,
  }));
}

/** Where a command goes: its harness (null while its run is queued) and its receipt so far. */
export async function commandRoute(db: Db, commandId: string) {
  const [row] = await db
    .select({ harnessId: commands.harnessId, receipt: commands.receipt })
    .from(commands)
    .where(eq(commands.id, commandId))
    .limit(1);
  return row ?? null;
}
