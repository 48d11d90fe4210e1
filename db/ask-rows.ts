import type { Ask } from "../lib/core/protocol";
import type { asks } from "./schema";

type AskRow = typeof asks.$inferSelect;

/** A timestamp column as the read models carry it: ISO 8601 (the drivers answer Postgres' own format). */
const isoOrNull = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** The `asks` row of an ask read model: its storage form. */
export function askRow(a: Ask): AskRow {
  return {
    id: a.ask_id,
    workspaceId: a.workspace_id,
    spaceId: a.space_id,
    runId: a.run_id,
    harnessId: a.harness_id,
    actor: a.actor,
    request: a.request,
    state: a.state,
    seq: a.seq,
    createdAt: a.created_at,
    expiresAt: a.expires_at,
    shownVia: a.shown_via,
    shownAt: a.shown_at,
    answer: a.answer,
    reason: a.reason,
    closedReason: a.closed_reason,
    appliedDefault: a.applied_default,
    settledSeq: a.settled_seq,
    settledAt: a.settled_at,
  };
}

/** The ask read model of an `asks` row. */
export function askOf(r: AskRow): Ask {
  return {
    ask_id: r.id,
    workspace_id: r.workspaceId,
    space_id: r.spaceId,
    run_id: r.runId,
    harness_id: r.harnessId,
    actor: r.actor,
    request: r.request,
    state: r.state,
    seq: r.seq,
    created_at: new Date(r.createdAt).toISOString(),
    expires_at: isoOrNull(r.expiresAt),
    shown_via: r.shownVia,
    shown_at: isoOrNull(r.shownAt),
    answer: r.answer,
    reason: r.reason,
    closed_reason: r.closedReason,
    applied_default: r.appliedDefault,
    settled_seq: r.settledSeq,
    settled_at: isoOrNull(r.settledAt),
  };
}
