import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { decisions, events, rooms, runs } from "@/db/schema";
import { runOf } from "@/db/run-rows";
import { decisionOf, roomOf } from "@/db/room-rows";
import { firstRevision, roomHistory } from "@/lib/projection/room";
import type { Decision, RoomRevision, Run, StoredEvent } from "@/lib/protocol";

export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 1000;

/** Events of a workspace after a seq, ascending; optionally one space's only. */
export async function eventsAfter(db: Db, workspaceId: string, after: number, limit: number, spaceId?: string) {
  const where = spaceId
    ? and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), gt(events.seq, after))
    : and(eq(events.workspaceId, workspaceId), gt(events.seq, after));
  const rows = await db.select({ seq: events.seq, body: events.body }).from(events).where(where).orderBy(asc(events.seq)).limit(limit);
  return { bodies: rows.map((r) => r.body), nextAfter: rows.length ? rows[rows.length - 1].seq : after };
}

/** A run's read model, or null. */
export async function getRun(db: Db, runId: string): Promise<Run | null> {
  const [r] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  return r ? runOf(r) : null;
}

/** The runs of a workspace (or one room), oldest first. */
export async function listRuns(db: Db, workspaceId: string, spaceId?: string): Promise<Run[]> {
  const where = spaceId ? and(eq(runs.workspaceId, workspaceId), eq(runs.spaceId, spaceId)) : eq(runs.workspaceId, workspaceId);
  return (await db.select().from(runs).where(where).orderBy(asc(runs.createdAt)).limit(1000)).map(runOf);
}

/** A room's current intent and outcome ([ROOM1]): revision 0 when nobody has edited it. */
export async function getRoom(db: Db, workspaceId: string, spaceId: string): Promise<RoomRevision> {
  const [r] = await db.select().from(rooms).where(and(eq(rooms.workspaceId, workspaceId), eq(rooms.spaceId, spaceId))).limit(1);
  return r ? roomOf(r) : firstRevision(workspaceId, spaceId);
}

/** Every revision of a room, oldest first: its room.updated events folded (on their partial index). */
export async function roomRevisions(db: Db, workspaceId: string, spaceId: string): Promise<RoomRevision[]> {
  const rows = await db
    .select({ body: events.body })
    .from(events)
    .where(and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), eq(events.type, "room.updated")))
    .orderBy(asc(events.seq))
    .limit(10_000);
  return roomHistory(workspaceId, spaceId, rows.map((r) => JSON.parse(r.body) as StoredEvent));
}

/** A room's decisions, active and superseded, oldest first ([DEC1]). */
export async function listDecisions(db: Db, workspaceId: string, spaceId: string): Promise<Decision[]> {
  const rows = await db
    .select()
    .from(decisions)
    .where(and(eq(decisions.workspaceId, workspaceId), eq(decisions.spaceId, spaceId)))
    .orderBy(asc(decisions.seq))
    .limit(5000);
  return rows.map(decisionOf);
}
