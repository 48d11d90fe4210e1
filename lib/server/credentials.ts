import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { newId } from "@/lib/core/protocol";
import type { Db } from "@/db/client";
import { credentials, persons } from "@/db/schema";
import { sha256 } from "./hash";
import { log } from "./log";
import type { Role } from "./roles";

interface CredentialBase {
  /** The harness, runner or person id; "admin" for the admin. */
  subjectId: string;
  /** The bearer token's public id (tok_…), so it alone can be revoked; absent for sessions. */
  tokenId?: string;
}
/** The admin: no workspace, may act in any. */
interface AdminCredential extends CredentialBase {
  kind: "admin";
  workspaceId: null;
  role?: undefined;
}
/** Everyone else belongs to exactly one workspace. `system` is Chips itself (events it appends), never a token. */
export interface WorkspaceCredential extends CredentialBase {
  kind: "harness" | "runner" | "person" | "system";
  workspaceId: string;
  /** A person's role in the workspace (lib/server/roles.ts). */
  role?: Role;
}
/** What a bearer token or session proves: the admin, or a credential of one workspace. */
export type Credential = AdminCredential | WorkspaceCredential;

/** How long a resolved credential is trusted without asking the database again: revocations reach
 * every node at once by NOTIFY (lib/server/revoke.ts); this bounds a missed one. */
export const CACHE_MS = 30_000;

const PREFIX: Record<Exclude<Credential["kind"], "system">, string> = {
  admin: "chips_adm_",
  harness: "chips_hrn_",
  runner: "chips_rnr_",
  person: "chips_usr_",
};

/** A new bearer token: 32 random bytes. Only its SHA-256 is ever stored. */
export function newToken(kind: Exclude<Credential["kind"], "system">): string {
  return PREFIX[kind] + randomBytes(32).toString("base64url");
}

export const hashToken = (token: string) => sha256(token);

/** Store a token's hash for a subject; answers the token's public id. */
export async function storeCredential(db: Db, token: string, c: Credential): Promise<string> {
  const id = newId("token");
  await db
    .insert(credentials)
    .values({ tokenHash: hashToken(token), id, kind: c.kind, workspaceId: c.workspaceId, subjectId: c.subjectId });
  return id;
}

/**
 * "Last used" is written only when a credential is read from the database (a cache miss) and
 * the stored time is older than the cache time: exact to about CACHE_MS, and a busy token
 * costs one small write per node per CACHE_MS rather than one per request. A failed write
 * is only logged: it must never refuse the request it rides on.
 */
export function touchedLongAgo(lastUsedAt: string | null, now = Date.now()): boolean {
  return lastUsedAt === null || now - Date.parse(lastUsedAt) >= CACHE_MS;
}
export function touchLater(what: string, write: () => Promise<unknown>) {
  void write().catch((e) => log.warn({ err: e, what }, "could not record when a credential was last used"));
}

/** A person's role, or null when they were removed from the workspace. */
export async function personRole(db: Db, personId: string): Promise<Role | null> {
  const [p] = await db
    .select({ role: persons.role })
    .from(persons)
    .where(and(eq(persons.id, personId), isNull(persons.revokedAt)))
    .limit(1);
  return p ? (p.role as Role) : null;
}

/**
 * Resolves bearer tokens, caching hits for CACHE_MS; `forget` drops a revoked subject's at
 * once. Misses are not cached (a token minted on another node appears).
 */
export class CredentialStore {
  private cache = new Map<string, { cred: Credential; until: number; used: number }>();
  constructor(private db: Db) {}

  async resolve(token: string | undefined | null): Promise<Credential | null> {
    if (!token || token.length > 200) return null;
    const h = hashToken(token);
    const hit = this.cache.get(h);
    const now = Date.now();
    if (hit && hit.until > now) {
      hit.used = now;
      return hit.cred;
    }
    const [row] = await this.db
      .select()
      .from(credentials)
      .where(and(eq(credentials.tokenHash, h), isNull(credentials.revokedAt)))
      .limit(1);
    if (!row || row.kind === "system") return null;
    const kind = row.kind as Credential["kind"];
    let c: Credential;
    if (kind === "admin") c = { kind, workspaceId: null, subjectId: row.subjectId, tokenId: row.id };
    else if (row.workspaceId) c = { kind, workspaceId: row.workspaceId, subjectId: row.subjectId, tokenId: row.id };
    else return null;
    if (c.kind === "person") {
      const role = await personRole(this.db, c.subjectId);
      if (!role) return null;
      c.role = role;
    }
    this.cache.set(h, { cred: c, until: Date.now() + CACHE_MS, used: Date.now() });
    if (touchedLongAgo(row.lastUsedAt))
      touchLater(row.id, () =>
        this.db.update(credentials).set({ lastUsedAt: new Date().toISOString() }).where(eq(credentials.tokenHash, h)),
      );
    return c;
  }

  /** Drop the hits past their cache time or unused since `cutoff` ([SCL1]): the next use reads again. */
  release(cutoff: number, now: number): void {
    for (const [h, e] of this.cache) if (e.until <= now || e.used < cutoff) this.cache.delete(h);
  }

  held() {
    return { credentials: this.cache.size };
  }

  /** A subject (person, harness, runner) or one token (tok_…) was revoked or changed: not trusted from memory. */
  forget(id: string) {
    for (const [h, e] of this.cache) if (e.cred.subjectId === id || e.cred.tokenId === id) this.cache.delete(h);
  }
}
