import { and, asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { decisions, events, rooms, spaces } from "@/db/schema";
import { decisionOf, roomOf } from "@/db/room-rows";
import { firstRevision, roomHistory } from "@/lib/core/projection/room";
import type { Decision, RoomRevision, StoredEvent } from "@/lib/core/protocol";

/** A room (space) of a workspace by id, or null when it is not that workspace's. */
export async function roomIn(db: Db, workspaceId: string, spaceId: string) {
  const [row] = await db
    .select({ id: spaces.id, name: spaces.name })
    .from(spaces)
    .where(and(eq(spaces.id, spaceId), eq(spaces.workspaceId, workspaceId)))
    .limit(1);
  return row ?? null;
}

/** A room's current intent and outcome ([ROOM1]): revision 0 when nobody has edited it. */
export async function getRoom(db: Db, workspaceId: string, spaceId: string): Promise<RoomRevision> {
  const [r] = await db
    .select()
    .from(rooms)
    .where(and(eq(rooms.workspaceId, workspaceId), eq(rooms.spaceId, spaceId)))
    .limit(1);
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
  return roomHistory(
    workspaceId,
    spaceId,
    rows.map((r) => JSON.parse(r.body) as StoredEvent),
  );
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
