import { ulid } from "ulid";
import type { RoomRevision } from "@/lib/core/protocol";
import { postEvent, type ApiError } from "./api";

/**
 * The room-state calls a room page makes (docs/PROTOCOL.md §6), over lib/browser/api.ts.
 * Writes are events posted with the person's session; the server sets the actor. A refusal
 * is thrown as an ApiError.
 */

/** Save the room's intent and outcome on top of revision `base` ([ROOM1]). */
export const saveRoom = (workspaceId: string, spaceId: string, base: number, intent: string, outcome: string) =>
  postEvent(workspaceId, { type: "room.updated", space_id: spaceId, revision: base + 1, intent, outcome });

/** A save based on an older revision is refused with the room as it now is, so the person sees the other's text. */
export function revisionConflict(e: ApiError | null): RoomRevision | undefined {
  return e?.code === "revision_conflict" ? (e.problem.current as RoomRevision | undefined) : undefined;
}

/** Record a decision in the room, superseding an active one when `supersedes` names it ([DEC1]). */
export const recordDecision = (
  workspaceId: string,
  spaceId: string,
  d: { title: string; text: string; supersedes?: string },
) =>
  postEvent(workspaceId, {
    type: "decision.recorded",
    space_id: spaceId,
    decision_id: `dec_${ulid()}`,
    status: "active",
    ...d,
  });
