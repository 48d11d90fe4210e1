import { and, eq, sql } from "drizzle-orm";
import { credentials, harnesses, persons, sessions } from "@/db/schema";
import type { ChipsServices } from "./services";

/** The Postgres channel on which a node tells the others whom it revoked. */
export const REVOKED_CHANNEL = "chips_revoked";

/**
 * Revoke a person (all their sessions and tokens) or a harness/runner (all its tokens) of a
 * workspace. The database says so first; then this node forgets them and closes their
 * sockets (rooms and /harness), and every other node does the same on the NOTIFY — so a
 * revoked browser's open room stops receiving at once, wherever it is connected.
 * Answers false when there is no such subject in the workspace.
 */
export async function revoke(svc: ChipsServices, workspaceId: string, subjectId: string): Promise<boolean> {
  const now = new Date().toISOString();
  const found = await svc.db.transaction(async (tx) => {
    const person = await tx
      .update(persons)
      .set({ revokedAt: now })
      .where(and(eq(persons.id, subjectId), eq(persons.workspaceId, workspaceId)))
      .returning({ id: persons.id });
    const harness = person.length ? [] : await tx.select({ id: harnesses.id }).from(harnesses).where(and(eq(harnesses.id, subjectId), eq(harnesses.workspaceId, workspaceId)));
    if (!person.length && !harness.length) return false;
    await tx.update(credentials).set({ revokedAt: now }).where(and(eq(credentials.subjectId, subjectId), eq(credentials.workspaceId, workspaceId)));
    if (person.length) await tx.delete(sessions).where(eq(sessions.personId, subjectId));
    return true;
  });
  if (!found) return false;
  svc.revokedHere(subjectId);
  if (svc.database.kind === "postgres") await svc.database.query(sql`select pg_notify(${REVOKED_CHANNEL}, ${subjectId})`);
  return true;
}
