import type { Decision, StoredEvent } from "@/lib/core/protocol";

/** A room's decisions by id. */
export type Decisions = Record<string, Decision>;

/**
 * How a `decision.recorded` changes a room's decisions ([DEC1], [DEC2]): a new one is active
 * and marks the one it supersedes superseded by it; re-recording an active one `superseded`
 * withdraws it. The writer has refused anything else; the fold leaves decisions it does not
 * hold alone, so the writer may fold with only the decisions an event names. Pure.
 */
export function foldDecisions(decisions: Decisions, e: StoredEvent): Decisions {
  if (e.type !== "decision.recorded") return decisions;
  const known = decisions[e.decision_id];
  if (known) {
    if (known.status !== "active" || e.status !== "superseded") return decisions;
    return { ...decisions, [e.decision_id]: { ...known, status: "superseded", updated_seq: e.seq } };
  }
  const made: Decision = {
    workspace_id: e.workspace_id,
    space_id: e.space_id!,
    decision_id: e.decision_id,
    title: e.title,
    text: e.text,
    status: "active",
    supersedes: e.supersedes ?? null,
    superseded_by: null,
    actor: e.actor,
    ts: e.ts,
    seq: e.seq,
    updated_seq: e.seq,
  };
  const next = { ...decisions, [e.decision_id]: made };
  const old = e.supersedes ? decisions[e.supersedes] : undefined;
  if (old && old.status === "active")
    next[old.decision_id] = { ...old, status: "superseded", superseded_by: e.decision_id, updated_seq: e.seq };
  return next;
}
