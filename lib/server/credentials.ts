import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { credentials } from "@/db/schema";
import { sha256 } from "./hash";

/** What a bearer token or session proves. `workspaceId` is null only for the admin. */
export interface Credential {
  /** `system` is Chips itself (events it appends), never a token. */
  kind: "admin" | "harness" | "runner" | "person" | "system";
  workspaceId: string | null;
  /** The harness, runner or person id; "admin" for the admin. */
  subjectId: string;
}

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

export async function storeCredential(db: Db, token: string, c: Credential): Promise<void> {
  await db.insert(credentials).values({ tokenHash: hashToken(token), kind: c.kind, workspaceId: c.workspaceId, subjectId: c.subjectId });
}

/**
 * Resolves bearer tokens, caching hits: tokens are high-entropy and not yet revocable, so
 * a hit never goes stale. Misses are not cached (a token minted on another node appears).
 */
export class CredentialStore {
  private cache = new Map<string, Credential>();
  constructor(private db: Db) {}

  async resolve(token: string | undefined | null): Promise<Credential | null> {
    if (!token || token.length > 200) return null;
    const h = hashToken(token);
    const hit = this.cache.get(h);
    if (hit) return hit;
    const [row] = await this.db
      .select()
      .from(credentials)
      .where(and(eq(credentials.tokenHash, h), isNull(credentials.revokedAt)))
      .limit(1);
    if (!row || row.kind === "system") return null;
    const c: Credential = { kind: row.kind as Credential["kind"], workspaceId: row.workspaceId, subjectId: row.subjectId };
    this.cache.set(h, c);
    return c;
  }
}
