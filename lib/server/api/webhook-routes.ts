import type { Hono } from "hono";
import { canonicalId, isId, WebhookBody } from "@/lib/core/protocol";
import { deliveriesOf, listWebhooks, webhookIn } from "@/lib/server/queries/webhooks";
import { addWebhook, removeWebhook } from "../webhooks/hooks";
import type { ChipsServices } from "../services";
import { workspaceScope } from "./access";
import { fail, intParam, json, parseBody, type ApiEnv } from "./http";

/**
 * Webhooks for new asks ([ASK7], docs/API.md): the workspace's owner adds, lists and removes
 * them and reads each one's deliveries. A webhook's URL is shown whole only in the answer to
 * the request that made it; after that, a hint.
 */
export function webhookRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.post("/api/v1/workspaces/:ws/webhooks", async (c) => {
    const ws = workspaceScope(c, undefined, "manage");
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, WebhookBody, "bad webhook", 8 * 1024);
    if (input instanceof Response) return input;
    const made = await addWebhook(svc, ws, c.get("cred").subjectId, input.data);
    return json({ ...made, url: input.data.url }, 201);
  });

  app.get("/api/v1/workspaces/:ws/webhooks", async (c) => {
    const ws = workspaceScope(c, undefined, "manage");
    if (ws instanceof Response) return ws;
    return json({ webhooks: await listWebhooks(svc.db, ws) });
  });

  app.delete("/api/v1/workspaces/:ws/webhooks/:webhook", async (c) => {
    const ws = workspaceScope(c, undefined, "manage");
    if (ws instanceof Response) return ws;
    const raw = c.req.param("webhook");
    const removed = isId("webhook", raw) && (await removeWebhook(svc, ws, canonicalId(raw)));
    return removed ? json({ removed: canonicalId(raw) }) : fail("not_found", "no such webhook in this workspace");
  });

  app.get("/api/v1/workspaces/:ws/webhooks/:webhook/deliveries", async (c) => {
    const ws = workspaceScope(c, undefined, "manage");
    if (ws instanceof Response) return ws;
    const limit = intParam(c.req.query("limit"), "limit", 100, 1000);
    if (limit instanceof Response) return limit;
    const raw = c.req.param("webhook");
    const hook = isId("webhook", raw) ? await webhookIn(svc.db, ws, canonicalId(raw)) : null;
    if (!hook) return fail("not_found", "no such webhook in this workspace");
    return json({ deliveries: await deliveriesOf(svc.db, hook.id, Math.max(1, limit)) });
  });
}
