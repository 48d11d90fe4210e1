import type { Decision, RoomRevision } from "../lib/core/protocol";
import type { decisions, rooms } from "./schema";

type RoomRow = typeof rooms.$inferSelect;
type DecisionRow = typeof decisions.$inferSelect;

const isoOrNull = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** The `rooms` row of a room's current revision. */
export function roomRow(r: RoomRevision): RoomRow {
  return {
    spaceId: r.space_id,
    workspaceId: r.workspace_id,
    revision: r.revision,
    intent: r.intent,
    outcome: r.outcome,
    actor: r.actor,
    ts: r.ts,
    seq: r.seq,
  };
}

/** A room's current revision from its `rooms` row. */
export function roomOf(r: RoomRow): RoomRevision {
  return {
    workspace_id: r.workspaceId,
    space_id: r.spaceId,
    revision: r.revision,
    intent: r.intent,
    outcome: r.outcome,
    actor: r.actor,
    ts: isoOrNull(r.ts),
    seq: r.seq,
  };
}

/** The `decisions` row of a decision. */
export function decisionRow(d: Decision): DecisionRow {
  return {
    spaceId: d.space_id,
    decisionId: d.decision_id,
    workspaceId: d.workspace_id,
    title: d.title,
    text: d.text,
    status: d.status,
    supersedes: d.supersedes,
    supersededBy: d.superseded_by,
    actor: d.actor,
    ts: d.ts,
    seq: d.seq,
    updatedSeq: d.updated_seq,
  };
}

/** A decision from its `decisions` row. */
export function decisionOf(r: DecisionRow): Decision {
  return {
    workspace_id: r.workspaceId,
    space_id: r.spaceId,
    decision_id: r.decisionId,
    title: r.title,
    text: r.text,
    status: r.status,
    supersedes: r.supersedes,
    superseded_by: r.supersededBy,
    actor: r.actor,
    ts: new Date(r.ts).toISOString(),
    seq: r.seq,
    updated_seq: r.updatedSeq,
  };
}
