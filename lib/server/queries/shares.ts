import { and, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { shareLinks, shareOpens } from "@/db/schema";
import type { ShareLink } from "@/lib/core/protocol";

/**
 * Named reads and writes of share links ([SHR1], docs/REVIEW.md). A link is looked up by
 * its token's hash only; the token is never stored or returned after it is made.
 */

/** Links of a workspace (newest first) or of one run of it, each with its opens. */
const LIST_LIMIT = 200;
/** Opens kept per link on a listing: the newest. */
const OPENS_SHOWN = 100;

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

export interface NewShare {
  id: string;
  tokenHash: string;
  workspaceId: string;
  runId: string;
  fromSeq: number | null;
  toSeq: number | null;
  createdBy: string;
  expiresAt: string;
}

export async function insertShare(db: Db, s: NewShare): Promise<ShareLink> {
  const [row] = await db.insert(shareLinks).values(s).returning();
  return linkOf(row, []);
}

export async function listShares(db: Db, ws: string, runId?: string): Promise<ShareLink[]> {
  const rows = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.workspaceId, ws), runId ? eq(shareLinks.runId, runId) : undefined))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id))
    .limit(LIST_LIMIT);
  if (!rows.length) return [];
  const opens = await db
    .select()
    .from(shareOpens)
    .where(
      inArray(
        shareOpens.shareId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(desc(shareOpens.openedAt))
    .limit(LIST_LIMIT * OPENS_SHOWN);
  return rows.map((r) => linkOf(r, opens.filter((o) => o.shareId === r.id).slice(0, OPENS_SHOWN)));
}

/** A link of workspace `ws` by id (revoked or not), or null. */
export async function shareById(db: Db, ws: string, id: string) {
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.id, id), eq(shareLinks.workspaceId, ws)));
  return row ?? null;
}

/** Revoke a live link; false when it was already revoked. */
export async function revokeShare(db: Db, id: string, by: string): Promise<boolean> {
  const rows = await db
    .update(shareLinks)
    .set({ revokedAt: sql`now()`, revokedBy: by })
    .where(and(eq(shareLinks.id, id), isNull(shareLinks.revokedAt)))
    .returning({ id: shareLinks.id });
  return rows.length > 0;
}

/** The live link with this token hash (not revoked, not expired by the database's clock), or null. */
export async function liveShare(db: Db, tokenHash: string) {
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(
      and(eq(shareLinks.tokenHash, tokenHash), isNull(shareLinks.revokedAt), gt(shareLinks.expiresAt, sql`now()`)),
    );
  return row ?? null;
}

export async function logShareOpen(
  db: Db,
  o: { shareId: string; workspaceId: string; address: string | null; userAgent: string | null },
): Promise<void> {
  await db.insert(shareOpens).values(o);
}

function linkOf(r: typeof shareLinks.$inferSelect, opens: (typeof shareOpens.$inferSelect)[]): ShareLink {
  return {
    id: r.id,
    run_id: r.runId,
    from_seq: r.fromSeq,
    to_seq: r.toSeq,
    created_by: r.createdBy,
    created_at: iso(r.createdAt)!,
    expires_at: iso(r.expiresAt)!,
    revoked_at: iso(r.revokedAt),
    revoked_by: r.revokedBy,
    opens: opens.map((o) => ({ opened_at: iso(o.openedAt)!, address: o.address, user_agent: o.userAgent })),
  };
}
