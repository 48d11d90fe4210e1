import { z } from "zod";
import { LIMITS } from "./limits";
import { text } from "./fields";

/**
 * Webhooks for new asks ([ASK7], docs/API.md): an owner points Chips at a Slack-compatible
 * endpoint (an incoming webhook); each new ask of the workspace is posted to it as
 * `{"text", "blocks"}`, retried with backoff, and each delivery is logged.
 */

/** `POST /api/v1/workspaces/:ws/webhooks`: where to post, and a name to know it by. */
export const WebhookBody = z.object({
  url: z
    .string()
    .max(2000)
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "an http(s) URL"),
  name: text(LIMITS.name).optional(),
});
export type WebhookBody = z.infer<typeof WebhookBody>;

/** A webhook as an owner sees it: never its whole URL (it is a secret of sorts), only its host and path's start. */
export const Webhook = z.object({
  id: z.string(),
  name: z.string(),
  url_hint: z.string(),
  created_by: z.string(),
  created_at: z.string(),
  deliveries: z.object({ pending: z.number().int(), delivered: z.number().int(), failed: z.number().int() }),
});
export type Webhook = z.infer<typeof Webhook>;

/** One ask's delivery to a webhook: where it stands and what the last attempt met. */
export const WebhookDelivery = z.object({
  id: z.string(),
  ask_id: z.string(),
  run_id: z.string(),
  state: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  next_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** `https://hooks.slack.com/services/T000/…`: enough to tell webhooks apart, not enough to post to one. */
export function urlHint(url: string): string {
  const u = new URL(url);
  const first = u.pathname.split("/").filter(Boolean)[0];
  return `${u.protocol}//${u.host}/${first ? `${first}/…` : "…"}`;
}
