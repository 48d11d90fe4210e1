import { problem, type IncomingEvent, type ProblemError } from "@/lib/core/protocol";
import type { BatchState } from "./batch-state";
import { decisionKey } from "./batch-state";

type Of<T extends IncomingEvent["type"]> = Extract<IncomingEvent, { type: T }>;

const refuse = (
  code: ProblemError["code"],
  detail: string,
  pointer: string,
  extensions?: Record<string, unknown>,
): ProblemError => ({
  ...problem(code, detail, [{ pointer, message: detail }]),
  ...(extensions ? { extensions } : {}),
});

/**
 * [ROOM1] a save makes the revision after the room's current one; a save based on an older
 * revision is refused with the room as it now is, so nothing is lost.
 */
export function judgeRoomUpdate(s: BatchState, e: Of<"room.updated">, base: string): ProblemError | null {
  const room = s.rooms.get(e.space_id!)!;
  if (e.revision === room.revision + 1) return null;
  return refuse(
    "revision_conflict",
    `the room is at revision ${room.revision}: this save was based on revision ${e.revision - 1}`,
    `${base}/revision`,
    { current: room },
  );
}

/**
 * [DEC1] a new decision is recorded active; what it supersedes must be an active decision of
 * the room. [DEC2] an existing decision may only be re-recorded `superseded` (withdrawn) while active.
 */
export function judgeDecision(s: BatchState, e: Of<"decision.recorded">, base: string): ProblemError | null {
  const known = s.decisions.get(decisionKey(e.space_id!, e.decision_id));
  if (known) {
    if (e.status === "superseded" && known.status === "active" && !e.supersedes) return null;
    return refuse(
      "invalid_transition",
      `decision ${e.decision_id} exists (${known.status}): it can only be withdrawn while active`,
      `${base}/decision_id`,
      { current: known },
    );
  }
  if (e.status !== "active") return refuse("validation_failed", "a new decision is recorded active", `${base}/status`);
  if (!e.supersedes) return null;
  if (e.supersedes === e.decision_id)
    return refuse("validation_failed", "a decision cannot supersede itself", `${base}/supersedes`);
  const old = s.decisions.get(decisionKey(e.space_id!, e.supersedes));
  if (!old) return refuse("validation_failed", "no such decision in this room", `${base}/supersedes`);
  if (old.status !== "active")
    return refuse("invalid_transition", `decision ${e.supersedes} is already superseded`, `${base}/supersedes`, {
      current: old,
    });
  return null;
}
