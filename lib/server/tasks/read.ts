import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events, runs } from "@/db/schema";
import { runOf } from "@/db/run-rows";
import { foldTasks, taskViews, type Tasks } from "@/lib/projection/tasks";
import type { Run, StoredEvent, TaskView } from "@/lib/protocol";

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

/** The runs of a room that some task started ([TSK2]: a task's status follows its newest). */
export async function taskRuns(db: Db, workspaceId: string, spaceId: string): Promise<Run[]> {
  const rows = await db
    .select()
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), eq(runs.spaceId, spaceId), isNotNull(sql`${runs.request}->'task'`)))
    .orderBy(asc(runs.createdAt))
    .limit(5000);
  return rows.map(runOf);
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
