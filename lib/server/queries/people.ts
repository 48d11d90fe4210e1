import { and, asc, eq, gt, inArray, isNull, max, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { credentials, harnesses, invites, persons, sessions } from "@/db/schema";
import type { HarnessRow, InviteRow, PersonRow, TokenRow } from "@/lib/core/views/people";

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** Who has access to a workspace: its people, harnesses and runners with their tokens, and its open invites. */
export async function workspaceAccess(
  db: Db,
  ws: string,
): Promise<{ people: PersonRow[]; harnesses: HarnessRow[]; invites: InviteRow[] }> {
  const now = new Date().toISOString();
  const [people, hs, tokens, seen, open] = await Promise.all([
    db
      .select({ id: persons.id, name: persons.name, role: persons.role })
      .from(persons)
      .where(and(eq(persons.workspaceId, ws), isNull(persons.revokedAt)))
      .orderBy(asc(persons.createdAt)),
    db
      .select({ id: harnesses.id, name: harnesses.name, kind: harnesses.kind })
      .from(harnesses)
      .where(eq(harnesses.workspaceId, ws))
      .orderBy(asc(harnesses.createdAt)),
    db
      .select({
        id: credentials.id,
        subjectId: credentials.subjectId,
        createdAt: credentials.createdAt,
        lastUsedAt: credentials.lastUsedAt,
        revokedAt: credentials.revokedAt,
      })
      .from(credentials)
      .where(eq(credentials.workspaceId, ws))
      .orderBy(asc(credentials.createdAt)),
    db
      .select({ personId: sessions.personId, at: max(sessions.lastUsedAt) })
      .from(sessions)
      .where(eq(sessions.workspaceId, ws))
      .groupBy(sessions.personId),
    db
      .select()
      .from(invites)
      .where(
        and(
          eq(invites.workspaceId, ws),
          isNull(invites.revokedAt),
          gt(invites.expiresAt, now),
          or(eq(invites.singleUse, false), eq(invites.uses, 0)),
        ),
      )
      .orderBy(asc(invites.createdAt)),
  ]);
  const tokensOf = (subject: string): TokenRow[] =>
    tokens
      .filter((t) => t.subjectId === subject)
      .map((t) => ({
        id: t.id,
        created_at: iso(t.createdAt)!,
        last_used_at: iso(t.lastUsedAt),
        revoked: t.revokedAt !== null,
      }));
  const lastSeen = new Map(seen.map((s) => [s.personId, iso(s.at)]));
  return {
    people: people.map((p) => ({ ...p, last_seen_at: lastSeen.get(p.id) ?? null, tokens: tokensOf(p.id) })),
    harnesses: hs.map((h) => ({ ...h, tokens: tokensOf(h.id) })),
    invites: open.map((i) => ({
      id: i.id,
      role: i.role,
      single_use: i.singleUse,
      uses: i.uses,
      created_at: iso(i.createdAt)!,
      expires_at: iso(i.expiresAt)!,
    })),
  };
}

/** A workspace's people (not revoked), oldest first: GET …/people. */
export async function listPeople(db: Db, ws: string) {
  return db
    .select({ id: persons.id, name: persons.name, role: persons.role, created_at: persons.createdAt })
    .from(persons)
    .where(and(eq(persons.workspaceId, ws), isNull(persons.revokedAt)))
    .orderBy(asc(persons.createdAt));
}

/** A person of the workspace (not revoked) with their role, or null. */
export async function livePerson(db: Db, ws: string, personId: string): Promise<{ role: string } | null> {
  const [row] = await db
    .select({ role: persons.role })
    .from(persons)
    .where(and(eq(persons.id, personId), eq(persons.workspaceId, ws), isNull(persons.revokedAt)))
    .limit(1);
  return row ?? null;
}

/** A person's display name, or null when there is no such person. */
export async function personName(db: Db, personId: string): Promise<string | null> {
  const [row] = await db.select({ name: persons.name }).from(persons).where(eq(persons.id, personId)).limit(1);
  return row?.name ?? null;
}

/** A harness or runner of the workspace, or null (another workspace's answers like a missing one). */
export async function harnessIn(db: Db, ws: string, id: string): Promise<{ id: string; kind: string } | null> {
  const [row] = await db
    .select({ id: harnesses.id, kind: harnesses.kind })
    .from(harnesses)
    .where(and(eq(harnesses.id, id), eq(harnesses.workspaceId, ws)))
    .limit(1);
  return row ?? null;
}

/** The names of the workspace's harnesses and runners among `ids`. */
export async function harnessNames(db: Db, ws: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: harnesses.id, name: harnesses.name })
    .from(harnesses)
    .where(and(eq(harnesses.workspaceId, ws), inArray(harnesses.id, ids)));
  return new Map(rows.map((h) => [h.id, h.name]));
}
