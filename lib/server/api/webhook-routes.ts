import { canonicalId, isId, problemAt } from "@/lib/core/protocol";
import { WEBHOOK_ROUTES } from "@/lib/core/routes";
import { deliveriesOf, listWebhooks, webhookIn } from "@/lib/server/queries/webhooks";
import { addWebhook, removeWebhook } from "../webhooks/hooks";
import type { ChipsServices } from "../services";
import type { Handlers } from "./adapter";

const noWebhook = () => problemAt("not_found", "no such webhook in this workspace", "/path/webhook");

/**
 * The handlers of lib/core/routes/asks.ts's webhooks ([ASK7]): an owner's. A webhook's URL is
 * answered whole only to the request that made it; after that, a hint.
 */
export function webhookHandlers(svc: Pick<ChipsServices, "db">): Handlers<typeof WEBHOOK_ROUTES> {
  return {
    addWebhook: async ({ cred, ws, body }) => ({
      status: 201,
      body: { ...(await addWebhook(svc, ws, cred.subjectId, body)), url: body.url },
    }),

    webhooks: async ({ ws }) => ({ status: 200, body: { webhooks: await listWebhooks(svc.db, ws) } }),

    removeWebhook: async ({ ws, params }) => {
      const id = isId("webhook", params.webhook) ? canonicalId(params.webhook) : null;
      return id && (await removeWebhook(svc, ws, id)) ? { status: 200, body: { removed: id } } : noWebhook();
    },

    webhookDeliveries: async ({ ws, params, query }) => {
      const hook = isId("webhook", params.webhook) ? await webhookIn(svc.db, ws, canonicalId(params.webhook)) : null;
      if (!hook) return noWebhook();
      return { status: 200, body: { deliveries: await deliveriesOf(svc.db, hook.id, Math.max(1, query.limit)) } };
    },
  };
}
