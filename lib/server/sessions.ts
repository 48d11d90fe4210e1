import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { loginLinks, persons, sessions } from "@/db/schema";
import { resultRows } from "@/db/rows";
import { CACHE_MS, personRole, touchedLongAgo, touchLater, type Credential } from "./credentials";
import { sha256 } from "./hash";

export const SESSION_COOKIE = "chips_session";
const LINK_TTL_MS = 30 * 24 * 3600 * 1000;
const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

/** The query parameter that carries a one-time login secret on a room link. */
export const LOGIN_PARAM = "login";

/**
 * A one-time login link (the Jupyter pattern): a random secret, stored hashed, that becomes
 * a session cookie the first time it is opened and is refused after that.
 */
export async function createLoginLink(
  db: Db,
  publicUrl: string,
  workspaceId: string,
  personId: string,
  nextPath: string,
) {
  const secret = randomBytes(24).toString("base64url");
  await db.insert(loginLinks).values({
    tokenHash: sha256(secret),
    workspaceId,
    personId,
    nextPath,
    expiresAt: new Date(Date.now() + LINK_TTL_MS).toISOString(),
  });
  const url = new URL(nextPath, publicUrl);
  url.searchParams.set(LOGIN_PARAM, secret);
  return url.toString();
}

/** Redeem a login secret once: answers the new session's cookie value and where to go, or null. */
export async function redeemLoginLink(
  db: Db,
  secret: string,
): Promise<{ cookie: string; nextPath: string; maxAgeSeconds: number } | null> {
  if (!secret || secret.length > 100) return null;
  const used = resultRows<{ workspace_id: string; person_id: string; next_path: string }>(
    await db.execute(sql`update ${loginLinks} set used_at = now()
      where token_hash = ${sha256(secret)} and used_at is null and expires_at > now()
      returning workspace_id, person_id, next_path`),
  );
  if (!used.length) return null;
  return { ...(await newSession(db, used[0].workspace_id, used[0].person_id)), nextPath: used[0].next_path };
}

/** A new browser session for a person: the cookie's value (its hash is stored) and its lifetime. */
export async function newSession(db: Db, workspaceId: string, personId: string) {
  const cookie = randomBytes(32).toString("base64url");
  await db.insert(sessions).values({
    tokenHash: sha256(cookie),
    workspaceId,
    personId,
    expiresAt: new Date(Date.now() + SESSION_TTL_MS).toISOString(),
  });
  return { cookie, maxAgeSeconds: SESSION_TTL_MS / 1000 };
}

/** Session cookies → the person they stand for; hits cached until the session expires. */
export class SessionStore {
  private cache = new Map<string, { cred: Credential; expires: number; until: number; used: number }>();
  constructor(private db: Db) {}

  async resolve(cookie: string | null | undefined): Promise<Credential | null> {
    if (!cookie || cookie.length > 100) return null;
    const h = sha256(cookie);
    const hit = this.cache.get(h);
    const now = Date.now();
    if (hit && hit.expires > now && hit.until > now) {
      hit.used = now;
      return hit.cred;
    }
    const [row] = await this.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.tokenHash, h), gt(sessions.expiresAt, new Date().toISOString())))
      .limit(1);
    if (!row) return null;
    const role = await personRole(this.db, row.personId);
    if (!role) return null;
    const cred: Credential = { kind: "person", workspaceId: row.workspaceId, subjectId: row.personId, role };
    this.cache.set(h, { cred, expires: Date.parse(row.expiresAt), until: Date.now() + CACHE_MS, used: Date.now() });
    if (touchedLongAgo(row.lastUsedAt))
      touchLater("session", () =>
        this.db.update(sessions).set({ lastUsedAt: new Date().toISOString() }).where(eq(sessions.tokenHash, h)),
      );
    return cred;
  }

  /** Drop the hits past their cache time or their session's end, or unused since `cutoff` ([SCL1]). */
  release(cutoff: number, now: number): void {
    for (const [h, e] of this.cache) if (e.until <= now || e.expires <= now || e.used < cutoff) this.cache.delete(h);
  }

  held() {
    return { sessions: this.cache.size };
  }

  /** A person was revoked or their role changed: their sessions are not trusted from memory any more. */
  forget(personId: string) {
    for (const [h, e] of this.cache) if (e.cred.subjectId === personId) this.cache.delete(h);
  }
}

/** The owner of a workspace: whom a login link made by the admin logs in. */
export async function workspaceOwner(db: Db, workspaceId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: persons.id })
    .from(persons)
    .where(and(eq(persons.workspaceId, workspaceId), eq(persons.role, "owner")))
    .orderBy(asc(persons.createdAt))
    .limit(1);
  return row?.id ?? null;
}

/** Read one cookie from a Cookie header. */
export function readCookie(header: string | undefined | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) {
      try {
        return decodeURIComponent(part.slice(at + 1).trim());
      } catch {
        return null; // not percent-encoding ("%", "%E0%A4%A"): no cookie this server set, so no session
      }
    }
  }
  return null;
}

export function sessionCookieHeader(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}
