import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { harnesses, spaces, webhookDeliveries, webhooks } from "@/db/schema";
import { urlHint, type Webhook, type WebhookDelivery } from "@/lib/core/protocol";

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** A workspace's webhooks with their deliveries counted, oldest first ([ASK7]). */
export async function listWebhooks(db: Db, ws: string): Promise<Webhook[]> {
  const rows = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.workspaceId, ws), isNull(webhooks.removedAt)))
    .orderBy(webhooks.createdAt);
  if (!rows.length) return [];
  const counts = await db
    .select({ id: webhookDeliveries.webhookId, state: webhookDeliveries.state, n: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .where(
      inArray(
        webhookDeliveries.webhookId,
        rows.map((r) => r.id),
      ),
    )
    .groupBy(webhookDeliveries.webhookId, webhookDeliveries.state);
  return rows.map((r) => {
    const deliveries = { pending: 0, delivered: 0, failed: 0 };
    for (const c of counts) if (c.id === r.id) deliveries[c.state] = Number(c.n);
    return {
      id: r.id,
      name: r.name,
      url_hint: urlHint(r.url),
      created_by: r.createdBy,
      created_at: iso(r.createdAt)!,
      deliveries,
    };
  });
}

/** A webhook of the workspace (removed ones too: their deliveries stay readable), or null. */
export async function webhookIn(db: Db, ws: string, id: string) {
  const [row] = await db
    .select({ id: webhooks.id, removedAt: webhooks.removedAt })
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.workspaceId, ws)))
    .limit(1);
  return row ?? null;
}

/** The webhooks a new ask of the workspace goes to: where, and their ids. */
export async function liveWebhooks(db: Db, ws: string) {
  return db
    .select({ id: webhooks.id, url: webhooks.url })
    .from(webhooks)
    .where(and(eq(webhooks.workspaceId, ws), isNull(webhooks.removedAt)));
}

/** A webhook's deliveries, newest first (at most `limit`). */
export async function deliveriesOf(db: Db, webhookId: string, limit: number): Promise<WebhookDelivery[]> {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    ask_id: r.askId,
    run_id: r.runId,
    state: r.state,
    attempts: r.attempts,
    last_status: r.lastStatus,
    last_error: r.lastError,
    created_at: iso(r.createdAt)!,
    next_at: r.state === "pending" ? iso(r.nextAt) : null,
    delivered_at: iso(r.deliveredAt),
  }));
}

/** The names a webhook message says: the ask's room and harness. */
export async function askNames(db: Db, spaceId: string, harnessId: string | null) {
  const [room] = await db.select({ name: spaces.name }).from(spaces).where(eq(spaces.id, spaceId)).limit(1);
  const [h] = harnessId
    ? await db.select({ name: harnesses.name }).from(harnesses).where(eq(harnesses.id, harnessId)).limit(1)
    : [];
  return { room: room?.name ?? "a room", harness: h?.name ?? "an agent" };
}
