import { and, eq, isNull } from "drizzle-orm";
import { newId, type StoredEvent, type WebhookBody } from "@/lib/core/protocol";
import { webhookDeliveries, webhooks } from "@/db/schema";
import { askNames, liveWebhooks } from "@/lib/server/queries/webhooks";
import { getRun } from "@/lib/server/queries/runs";
import type { Committed } from "../ingest/writer";
import type { ChipsServices } from "../services";
import { askMessage } from "./message";
import type { WebhookSender } from "./sender";

/** An owner adds a webhook for the workspace's new asks ([ASK7]); answers its id. */
export async function addWebhook(svc: Pick<ChipsServices, "db">, ws: string, by: string, body: WebhookBody) {
  const id = newId("webhook");
  const name = body.name ?? new URL(body.url).host;
  await svc.db.insert(webhooks).values({ id, workspaceId: ws, name, url: body.url, createdBy: by });
  return { id, name };
}

/** Remove a webhook: nothing more goes to it; its deliveries stay readable. False when there is none. */
export async function removeWebhook(svc: Pick<ChipsServices, "db">, ws: string, id: string): Promise<boolean> {
  const gone = await svc.db
    .update(webhooks)
    .set({ removedAt: new Date().toISOString() })
    .where(and(eq(webhooks.id, id), eq(webhooks.workspaceId, ws), isNull(webhooks.removedAt)))
    .returning({ id: webhooks.id });
  return gone.length > 0;
}

type Asked = Extract<StoredEvent, { type: "run.asked" }>;

/**
 * After a commit on this node (each commit is this node's alone, so each ask is enqueued once
 * cluster-wide): a delivery of each new ask to each of the workspace's webhooks, then a kick
 * of the sender. A derived effect: it never touches the request that stored the ask.
 */
export function webhookEnqueuer(svc: Pick<ChipsServices, "config" | "db" | "storage">, sender: WebhookSender) {
  async function enqueue(ws: string, asked: Asked[]) {
    const hooks = await liveWebhooks(svc.db, ws);
    if (!hooks.length) return;
    const rows = [];
    for (const e of asked) {
      const run = await getRun(svc.db, e.run_id!);
      const names = await askNames(svc.db, e.space_id!, run?.harness_id ?? null);
      const url = `${svc.config.publicUrl}/w/${ws}/r/${e.space_id}#${e.ask_id}`;
      const payload = askMessage(e, names, url);
      for (const h of hooks)
        rows.push({
          id: newId("delivery"),
          webhookId: h.id,
          workspaceId: ws,
          runId: e.run_id!,
          askId: e.ask_id,
          payload,
          state: "pending" as const,
          nextAt: new Date().toISOString(),
        });
    }
    await svc.db.insert(webhookDeliveries).values(rows).onConflictDoNothing();
    sender.kick();
  }
  return (ws: string, batch: Committed[]) => {
    const asked = batch.map((c) => c.event).filter((e): e is Asked => e.type === "run.asked");
    if (asked.length) void enqueue(ws, asked).catch((e) => svc.storage.refuse(e, "enqueueing webhook deliveries"));
  };
}
