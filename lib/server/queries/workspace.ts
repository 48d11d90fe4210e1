import { and, asc, eq, inArray, ne } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs, spaces, workspaces } from "@/db/schema";

/** A workspace's name, or null when there is no such workspace. */
export async function workspaceName(db: Db, workspaceId: string): Promise<string | null> {
  const [row] = await db
    .select({ name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .limit(1);
  return row?.name ?? null;
}

/** A workspace's rooms, oldest first. */
export async function roomsOf(db: Db, workspaceId: string) {
  return db
    .select({ id: spaces.id, name: spaces.name })
    .from(spaces)
    .where(eq(spaces.workspaceId, workspaceId))
    .orderBy(asc(spaces.createdAt));
}

/** The runs not finished in a workspace, oldest first: what the workspace page lists as going. */
export async function liveRuns(db: Db, workspaceId: string) {
  return db
    .select({
      id: runs.id,
      spaceId: runs.spaceId,
      state: runs.state,
      goal: runs.goal,
      goalFrom: runs.goalFrom,
      harnessId: runs.harnessId,
    })
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), ne(runs.state, "finished")))
    .orderBy(asc(runs.createdAt))
    .limit(500);
}

/** The seq heads of these workspaces: what a node re-reads when its LISTEN connection comes back. */
export async function workspaceHeads(db: Db, ids: string[]): Promise<{ id: string; head: number }[]> {
  if (!ids.length) return [];
  return db.select({ id: workspaces.id, head: workspaces.seqHead }).from(workspaces).where(inArray(workspaces.id, ids));
}
