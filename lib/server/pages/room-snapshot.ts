import type { RoomSnapshot } from "@/lib/core/protocol";
import type { Db } from "@/db/client";
import { spaceFramesBefore } from "@/lib/server/queries/frames";
import { getRoom, listDecisions } from "@/lib/server/queries/rooms";
import { asksOfRuns } from "@/lib/server/queries/asks";
import { receiptsOf } from "@/lib/server/queries/runs";
import { roomRuns, roomTasks } from "@/lib/server/queries/tasks";
import type { OutFrame } from "@/lib/server/realtime/raw";

/**
 * A room's snapshot as read: its newest events as the stored frame strings (the socket sends
 * them unparsed, the page parses them once), everything else as `RoomSnapshot` has it.
 */
export type RoomSnapshotRead = Omit<RoomSnapshot, "events"> & { frames: Pick<OutFrame, "seq" | "json">[] };

/**
 * The room as a client starts from it ([RT4]): its newest `limit` events, its runs with their
 * receipts and asks, its intent and outcome, decisions and tasks. The one reader of it: the room page
 * draws from it and a join too far behind is sent it, so the two never disagree.
 */
export async function roomSnapshot(
  db: Db,
  workspaceId: string,
  spaceId: string,
  limit: number,
): Promise<RoomSnapshotRead> {
  // Events first, then the rest: a run or the room read a moment later is at least as new as
  // the page, and the events after it (which the client catches up on) fold on top of them.
  const frames = await spaceFramesBefore(db, workspaceId, spaceId, null, limit);
  const [runs, room, decisions, tasks] = await Promise.all([
    roomRuns(db, workspaceId, spaceId),
    getRoom(db, workspaceId, spaceId),
    listDecisions(db, workspaceId, spaceId),
    roomTasks(db, workspaceId, spaceId),
  ]);
  const runIds = runs.map((r) => r.id);
  const [receipts, asks] = await Promise.all([receiptsOf(db, runIds), asksOfRuns(db, runIds)]);
  return {
    space_id: spaceId,
    head_seq: frames.length ? frames[frames.length - 1].seq : 0,
    runs,
    receipts,
    asks,
    room,
    decisions,
    tasks: Object.values(tasks),
    frames,
  };
}
