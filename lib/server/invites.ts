import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { newId } from "@/lib/core/protocol";
import type { Db } from "@/db/client";
import { invites } from "@/db/schema";
import { sha256 } from "./hash";
import type { Role } from "./roles";

/** The path an invite link opens (lib/server/invite-route.ts redeems it). */
const INVITE_PATH = "/invite";

/**
 * A new invite to a workspace with a role: only the secret's hash is stored; the
 * link carries the secret and is shown once.
 */
export async function createInvite(
  db: Db,
  publicUrl: string,
  o: { workspaceId: string; role: Role; singleUse: boolean; expiresInSeconds: number; createdBy: string },
) {
  const secret = randomBytes(24).toString("base64url");
  const id = newId("command").replace(/^cmd_/, "inv_");
  const expiresAt = new Date(Date.now() + o.expiresInSeconds * 1000).toISOString();
  await db.insert(invites).values({
    tokenHash: sha256(secret),
    id,
    workspaceId: o.workspaceId,
    role: o.role,
    singleUse: o.singleUse,
    createdBy: o.createdBy,
    expiresAt,
  });
  return { id, url: `${publicUrl}${INVITE_PATH}?code=${secret}`, expiresAt };
}

/** Withdraw an open invite of the workspace; false when there is none by that id. */
export async function withdrawInvite(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const gone = await db
    .update(invites)
    .set({ revokedAt: new Date().toISOString() })
    .where(and(eq(invites.id, id), eq(invites.workspaceId, workspaceId), isNull(invites.revokedAt)))
    .returning({ id: invites.id });
  return gone.length > 0;
}
