import type { Webhook, WebhookDelivery } from "@/lib/core/protocol";
import { failureLine, refusalOf, request } from "./api";

/** The calls the workspace page's webhooks panel makes ([ASK7]), over lib/browser/api.ts. */

const base = (ws: string) => `/api/v1/workspaces/${encodeURIComponent(ws)}/webhooks`;

export const listWebhooks = async (ws: string) => (await request<{ webhooks: Webhook[] }>("GET", base(ws))).webhooks;

/** Add a webhook; null when it was added, else the line to show. */
export async function addWebhook(ws: string, url: string, name?: string): Promise<string | null> {
  try {
    await request("POST", base(ws), { url, ...(name ? { name } : {}) });
    return null;
  } catch (e) {
    return failureLine(e, "Could not reach Chips.", (s) => `Could not add it (${s}).`);
  }
}

export const removeWebhook = (ws: string, id: string) =>
  refusalOf(request("DELETE", `${base(ws)}/${encodeURIComponent(id)}`));

export const webhookDeliveries = async (ws: string, id: string) =>
  (await request<{ deliveries: WebhookDelivery[] }>("GET", `${base(ws)}/${encodeURIComponent(id)}/deliveries?limit=20`))
    .deliveries;
