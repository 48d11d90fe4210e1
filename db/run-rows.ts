import type { Receipt, Run } from "../lib/core/protocol";
import type { commands, runs } from "./schema";

type RunRow = typeof runs.$inferSelect;
type ReceiptRow = typeof commands.$inferSelect;

/** A timestamp column as the read models carry it: ISO 8601 (the drivers answer Postgres' own format). */
const iso = (t: string) => new Date(t).toISOString();
const isoOrNull = (t: string | null) => (t === null ? null : iso(t));

/** The `runs` row of a run read model: its storage form, one column per field. */
export function runRow(r: Run): RunRow {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    spaceId: r.space_id,
    harnessId: r.harness_id,
    actor: r.actor,
    state: r.state,
    pending: r.pending,
    goal: r.goal,
    goalFrom: r.goal_from,
    sessionRef: r.session_ref,
    commands: r.commands,
    plan: r.plan,
    status: r.status,
    usage: r.usage,
    outcome: r.outcome,
    summary: r.summary,
    startedSeq: r.started_seq,
    lastSeq: r.last_seq,
    createdAt: r.created_at,
    startedAt: r.started_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
    request: r.request,
    runner: r.runner,
    checkpoint: r.checkpoint,
    changeSet: r.change_set,
    runnerError: r.runner_error,
    lastLog: r.last_log,
    review: r.review,
    tools: r.tools,
    asksOpen: r.asks_open,
    waitingSince: r.waiting_since,
  };
}

/** The run read model of a `runs` row. */
export function runOf(r: RunRow): Run {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    space_id: r.spaceId,
    harness_id: r.harnessId,
    actor: r.actor,
    state: r.state,
    pending: r.pending,
    goal: r.goal,
    goal_from: r.goalFrom,
    session_ref: r.sessionRef,
    commands: r.commands,
    plan: r.plan,
    status: r.status,
    usage: r.usage,
    outcome: r.outcome,
    summary: r.summary,
    started_seq: r.startedSeq,
    last_seq: r.lastSeq,
    created_at: iso(r.createdAt),
    started_at: isoOrNull(r.startedAt),
    updated_at: iso(r.updatedAt),
    finished_at: isoOrNull(r.finishedAt),
    request: r.request,
    runner: r.runner,
    checkpoint: r.checkpoint,
    change_set: r.changeSet,
    runner_error: r.runnerError,
    last_log: r.lastLog,
    review: r.review,
    tools: r.tools,
    asks_open: r.asksOpen,
    waiting_since: isoOrNull(r.waitingSince),
  };
}

/** The `commands` row of a command's receipt. */
export function receiptRow(r: Receipt): ReceiptRow {
  return {
    id: r.command_id,
    workspaceId: r.workspace_id,
    runId: r.run_id,
    harnessId: r.harness_id,
    command: r.command,
    text: r.text,
    personId: r.person_id,
    receipt: r.receipt,
    reason: r.reason,
    seq: r.seq,
    ackSeq: r.ack_seq,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    ackedAt: r.acked_at,
  };
}

/** The receipt read model of a `commands` row. */
export function receiptOf(r: ReceiptRow): Receipt {
  return {
    command_id: r.id,
    workspace_id: r.workspaceId,
    run_id: r.runId,
    harness_id: r.harnessId,
    command: r.command,
    text: r.text,
    person_id: r.personId,
    receipt: r.receipt,
    reason: r.reason,
    seq: r.seq,
    ack_seq: r.ackSeq,
    created_at: iso(r.createdAt),
    delivered_at: isoOrNull(r.deliveredAt),
    acked_at: isoOrNull(r.ackedAt),
  };
}
