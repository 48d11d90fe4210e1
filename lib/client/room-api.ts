import { ulid } from "ulid";
import type { RoomRevision, RoomRevisionsAnswer } from "@/lib/protocol";

/**
 * The room-state calls a room page makes (docs/PROTOCOL.md §6), so components never `fetch`
 * themselves. Writes are events posted with the person's session; the server sets the actor.
 */

export type SaveAnswer = { ok: true } | { ok: false; conflict: RoomRevision } | { ok: false; error: string };

async function problemOf(res: Response): Promise<{ code?: string; detail?: string; current?: RoomRevision } | null> {
  return (await res.json().catch(() => null)) as { code?: string; detail?: string; current?: RoomRevision } | null;
}

/** An error line for a refused or failed write (null when it went through). */
async function refusal(res: Response | null): Promise<string | null> {
  if (!res) return "Could not reach Chips.";
  if (res.ok) return null;
  return (await problemOf(res))?.detail ?? `Refused (${res.status}).`;
}

/** POST one event as the signed-in person. */
function postEvent(workspaceId: string, event: Record<string, unknown>): Promise<Response | null> {
  return fetch("/api/v1/events", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ v: 1, id: `evt_${ulid()}`, idempotency_key: `ui_${ulid()}`, workspace_id: workspaceId, ...event }),
  }).catch(() => null);
}

/**
 * Save the room's intent and outcome on top of revision `base` ([ROOM1]): a save based on an
 * older revision answers the room as it now is, so the person sees the other's text.
 */
export async function saveRoom(workspaceId: string, spaceId: string, base: number, intent: string, outcome: string): Promise<SaveAnswer> {
  const res = await postEvent(workspaceId, { type: "room.updated", space_id: spaceId, revision: base + 1, intent, outcome });
  if (!res) return { ok: false, error: "Could not reach Chips; your text is kept here." };
  if (res.ok) return { ok: true };
  const p = await problemOf(res);
  if (p?.code === "revision_conflict" && p.current) return { ok: false, conflict: p.current };
  return { ok: false, error: p?.detail ?? `Could not save (${res.status}).` };
}

/** Every revision of the room, oldest first. */
export async function roomRevisions(spaceId: string): Promise<RoomRevision[]> {
  const res = await fetch(`/api/v1/spaces/${spaceId}/revisions`);
  if (!res.ok) throw new Error(`could not read the room's history (${res.status})`);
  return ((await res.json()) as RoomRevisionsAnswer).revisions;
}

/** Record a decision in the room, superseding an active one when `supersedes` names it ([DEC1]). */
export async function recordDecision(workspaceId: string, spaceId: string, d: { title: string; text: string; supersedes?: string }): Promise<string | null> {
  const res = await postEvent(workspaceId, { type: "decision.recorded", space_id: spaceId, decision_id: `dec_${ulid()}`, status: "active", ...d });
  return refusal(res);
}
