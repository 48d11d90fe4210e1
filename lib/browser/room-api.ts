import { ulid } from "ulid";
import type { RoomRevision } from "@/lib/core/protocol";
import { ApiError, failureLine, postEvent, refusalOf, roomRevisions as readRevisions } from "./api";

/**
 * The room-state calls a room page makes (docs/PROTOCOL.md §6), over lib/browser/api.ts.
 * Writes are events posted with the person's session; the server sets the actor.
 */

export type SaveAnswer = { ok: true } | { ok: false; conflict: RoomRevision } | { ok: false; error: string };

/**
 * Save the room's intent and outcome on top of revision `base` ([ROOM1]): a save based on an
 * older revision answers the room as it now is, so the person sees the other's text.
 */
export async function saveRoom(
  workspaceId: string,
  spaceId: string,
  base: number,
  intent: string,
  outcome: string,
): Promise<SaveAnswer> {
  try {
    await postEvent(workspaceId, { type: "room.updated", space_id: spaceId, revision: base + 1, intent, outcome });
    return { ok: true };
  } catch (e) {
    const current =
      e instanceof ApiError && e.code === "revision_conflict"
        ? (e.problem.current as RoomRevision | undefined)
        : undefined;
    if (current) return { ok: false, conflict: current };
    return {
      ok: false,
      error: failureLine(e, "Could not reach Chips; your text is kept here.", (s) => `Could not save (${s}).`),
    };
  }
}

/** Every revision of the room, oldest first. */
export async function roomRevisions(spaceId: string): Promise<RoomRevision[]> {
  try {
    return await readRevisions(spaceId);
  } catch (e) {
    throw new Error(`could not read the room's history (${e instanceof ApiError ? e.status : 0})`, { cause: e });
  }
}

/** Record a decision in the room, superseding an active one when `supersedes` names it ([DEC1]). */
export function recordDecision(
  workspaceId: string,
  spaceId: string,
  d: { title: string; text: string; supersedes?: string },
): Promise<string | null> {
  return refusalOf(
    postEvent(workspaceId, {
      type: "decision.recorded",
      space_id: spaceId,
      decision_id: `dec_${ulid()}`,
      status: "active",
      ...d,
    }),
  );
}
