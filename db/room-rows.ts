import type { RoomRevision } from "../lib/protocol";
import type { rooms } from "./schema";

type RoomRow = typeof rooms.$inferSelect;

const isoOrNull = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** The `rooms` row of a room's current revision. */
export function roomRow(r: RoomRevision): RoomRow {
  return { spaceId: r.space_id, workspaceId: r.workspace_id, revision: r.revision, intent: r.intent, outcome: r.outcome, actor: r.actor, ts: r.ts, seq: r.seq };
}

/** A room's current revision from its `rooms` row. */
export function roomOf(r: RoomRow): RoomRevision {
  return { workspace_id: r.workspaceId, space_id: r.spaceId, revision: r.revision, intent: r.intent, outcome: r.outcome, actor: r.actor, ts: isoOrNull(r.ts), seq: r.seq };
}
