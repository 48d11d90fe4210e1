import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events, runs } from "@/db/schema";

export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 1000;

/** Events of a workspace after a seq, ascending; optionally one space's only. */
export async function eventsAfter(db: Db, workspaceId: string, after: number, limit: number, spaceId?: string) {
  const where = spaceId
    ? and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), gt(events.seq, after))
    : and(eq(events.workspaceId, workspaceId), gt(events.seq, after));
  const rows = await db.select({ seq: events.seq, body: events.body }).from(events).where(where).orderBy(asc(events.seq)).limit(limit);
  return { bodies: rows.map((r) => r.body), nextAfter: rows.length ? rows[rows.length - 1].seq : after };
}

const iso = (t: string | null) => (t ? new Date(t).toISOString() : null);

/** A run's read model, served as snake_case JSON. */
export function runJson(r: typeof runs.$inferSelect) {
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
    plan: r.plan,
    status: r.status,
    usage: r.usage,
    outcome: r.outcome,
    summary: r.summary,
    started_seq: r.startedSeq,
    last_seq: r.lastSeq,
    created_at: iso(r.createdAt),
    started_at: iso(r.startedAt),
    updated_at: iso(r.updatedAt),
    finished_at: iso(r.finishedAt),
    request: r.request,
    runner: r.runner,
    checkpoint: r.checkpoint,
    change_set: r.changeSet,
    runner_error: r.runnerError,
    last_log: r.lastLog,
  };
}

export async function getRun(db: Db, runId: string) {
  const [r] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  return r ?? null;
}

export async function listRuns(db: Db, workspaceId: string, spaceId?: string) {
  const where = spaceId ? and(eq(runs.workspaceId, workspaceId), eq(runs.spaceId, spaceId)) : eq(runs.workspaceId, workspaceId);
  return db.select().from(runs).where(where).orderBy(asc(runs.createdAt)).limit(1000);
}
