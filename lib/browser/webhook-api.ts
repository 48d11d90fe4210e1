import { ROUTES } from "@/lib/core/routes";
import { call } from "./api";

/** The calls the workspace page's webhooks panel makes ([ASK7]), over lib/browser/api.ts. */

export const listWebhooks = async (ws: string) => (await call(ROUTES.webhooks, { params: { ws } })).webhooks;

/** Add a webhook; a refusal is thrown as an ApiError for the form to place (components/ui/use-action.ts). */
export const addWebhook = (ws: string, url: string, name?: string) =>
  call(ROUTES.addWebhook, { params: { ws }, body: { url, ...(name ? { name } : {}) } });

/** Remove a webhook; a refusal is thrown as an ApiError. */
export const removeWebhook = (ws: string, id: string) => call(ROUTES.removeWebhook, { params: { ws, webhook: id } });

export const webhookDeliveries = async (ws: string, id: string) =>
  (await call(ROUTES.webhookDeliveries, { params: { ws, webhook: id }, query: { limit: "20" } })).deliveries;
