import { and, asc, eq, gt, isNull, max, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { credentials, harnesses, invites, persons, sessions } from "@/db/schema";

/** One bearer token as an owner sees it: never the token, only its public id and its use. */
export interface TokenRow {
  id: string;
  created_at: string;
  /** Exact to about the credential cache time (30 s); null when never used. */
  last_used_at: string | null;
  revoked: boolean;
}
export interface PersonRow {
  id: string;
  name: string;
  role: string;
  /** The latest use of any of their browser sessions. */
  last_seen_at: string | null;
  tokens: TokenRow[];
}
export interface HarnessRow {
  id: string;
  name: string;
  kind: string;
  tokens: TokenRow[];
}
export interface InviteRow {
  id: string;
  role: string;
  single_use: boolean;
  uses: number;
  created_at: string;
  expires_at: string;
}

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** Who has access to a workspace (issue 15): its people, harnesses and runners with their tokens, and its open invites. */
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
