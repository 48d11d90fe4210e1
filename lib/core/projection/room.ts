import type { RoomRevision, StoredEvent } from "@/lib/core/protocol";

/** A room nobody has edited: revision 0, empty intent and outcome (docs/PROTOCOL.md §6's defaults). */
export const firstRevision = (workspaceId: string, spaceId: string): RoomRevision => ({
  workspace_id: workspaceId,
  space_id: spaceId,
  revision: 0,
  intent: "",
  outcome: "",
  actor: null,
  ts: null,
  seq: null,
});

/**
 * How a `room.updated` moves a room to its next revision ([ROOM1]): a text it leaves out is
 * kept. The writer has already refused a save not based on the current revision, so the
 * fold takes the revision as stored. Pure: the server, the room and the history all call it.
 */
export function foldRoom(room: RoomRevision, e: StoredEvent): RoomRevision {
  // A room already past this revision (a page read after the event) keeps what it has.
  if (e.type !== "room.updated" || e.revision <= room.revision) return room;
  return {
    ...room,
    revision: e.revision,
    intent: e.intent ?? room.intent,
    outcome: e.outcome ?? room.outcome,
    actor: e.actor,
    ts: e.ts,
    seq: e.seq,
  };
}

/** Every revision of a room, oldest first, from its `room.updated` events in seq order. */
export function roomHistory(workspaceId: string, spaceId: string, updates: readonly StoredEvent[]): RoomRevision[] {
  const out: RoomRevision[] = [];
  let room = firstRevision(workspaceId, spaceId);
  for (const e of updates) {
    if (e.type !== "room.updated" || e.space_id !== spaceId) continue;
    room = foldRoom(room, e);
    out.push(room);
  }
  return out;
}
