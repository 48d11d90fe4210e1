import { ROUTES } from "@/lib/core/routes";
import { call, failureLine } from "./api";

/** The calls the workspace page's webhooks panel makes ([ASK7]), over lib/browser/api.ts. */

export const listWebhooks = async (ws: string) => (await call(ROUTES.webhooks, { params: { ws } })).webhooks;

/** Add a webhook; null when it was added, else the line to show. */
export async function addWebhook(ws: string, url: string, name?: string): Promise<string | null> {
  try {
    await call(ROUTES.addWebhook, { params: { ws }, body: { url, ...(name ? { name } : {}) } });
    return null;
  } catch (e) {
    return failureLine(e, "Could not reach Chips.", (s) => `Could not add it (${s}).`);
  }
}

/** Remove a webhook; null when it was removed, else the line to show. */
export async function removeWebhook(ws: string, id: string): Promise<string | null> {
  try {
    await call(ROUTES.removeWebhook, { params: { ws, webhook: id } });
    return null;
  } catch (e) {
    return failureLine(e, "Could not reach Chips.", (s) => `Refused (${s}).`);
  }
}

export const webhookDeliveries = async (ws: string, id: string) =>
  (await call(ROUTES.webhookDeliveries, { params: { ws, webhook: id }, query: { limit: "20" } })).deliveries;
