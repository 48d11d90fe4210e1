import { and, asc, desc, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events, runs } from "@/db/schema";
import { runOf } from "@/db/run-rows";
import { listRuns } from "./runs";
import { foldTasks, taskViews, type Tasks } from "@/lib/core/projection/tasks";
import type { Run, StoredEvent, TaskView } from "@/lib/core/protocol";

/** A room's tasks: its `task.saved` events (on their partial index) folded by the one projection ([TSK1]). */
export async function roomTasks(db: Db, workspaceId: string, spaceId: string): Promise<Tasks> {
  const rows = await db
    .select({ body: events.body })
    .from(events)
    .where(and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), eq(events.type, "task.saved")))
    .orderBy(asc(events.seq))
    .limit(20_000);
  return rows.reduce((t, r) => foldTasks(t, JSON.parse(r.body) as StoredEvent), {} as Tasks);
}

/**
 * The newest run of each task of a room ([TSK2]: a task's status follows its newest; [TSK3]'s
 * checks read it) — however many runs the room has had, one per task, on the runs' room index.
 */
export async function taskRuns(db: Db, workspaceId: string, spaceId: string): Promise<Run[]> {
  const taskOf = sql`(${runs.request}->'task'->>'task_id')`;
  const rows = await db
    .selectDistinctOn([taskOf])
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), eq(runs.spaceId, spaceId), isNotNull(taskOf)))
    .orderBy(taskOf, desc(runs.createdAt), desc(runs.id));
  return rows.map(runOf);
}

/**
 * The runs a room's page and its socket snapshot start from: the room's runs as listed (the
 * first page of them) and, whatever its history, each task's newest run — so the board's
 * status of every task is right from the first paint ([TSK2]). Oldest first.
 */
export async function roomRuns(db: Db, workspaceId: string, spaceId: string): Promise<Run[]> {
  const [listed, newest] = await Promise.all([listRuns(db, workspaceId, spaceId), taskRuns(db, workspaceId, spaceId)]);
  const known = new Set(listed.map((r) => r.id));
  const more = newest.filter((r) => !known.has(r.id));
  return more.length ? [...listed, ...more].sort((a, b) => a.created_at.localeCompare(b.created_at)) : listed;
}

/** A room's tasks with their status, oldest first. */
export async function listTasks(db: Db, workspaceId: string, spaceId: string): Promise<TaskView[]> {
  const [tasks, rs] = await Promise.all([roomTasks(db, workspaceId, spaceId), taskRuns(db, workspaceId, spaceId)]);
  return taskViews(tasks, rs);
}

/** The stored event a workspace's idempotency key made, if any (on the key's own index): a retry answers it. */
export async function storedByKey(db: Db, workspaceId: string, key: string): Promise<StoredEvent | null> {
  const [row] = await db
    .select({ body: events.body })
    .from(events)
    .where(sql`(${events.workspaceId} || ' ' || ${events.idempotencyKey}) = ${`${workspaceId} ${key}`}`)
    .limit(1);
  return row ? (JSON.parse(row.body) as StoredEvent) : null;
}
