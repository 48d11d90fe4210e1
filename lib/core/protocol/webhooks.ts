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
export interface Webhook {
  id: string;
  name: string;
  url_hint: string;
  created_by: string;
  created_at: string;
  deliveries: { pending: number; delivered: number; failed: number };
}

/** One ask's delivery to a webhook: where it stands and what the last attempt met. */
export interface WebhookDelivery {
  id: string;
  ask_id: string;
  run_id: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  next_at: string | null;
  delivered_at: string | null;
}

/** `https://hooks.slack.com/services/T000/…`: enough to tell webhooks apart, not enough to post to one. */
export function urlHint(url: string): string {
  const u = new URL(url);
  const first = u.pathname.split("/").filter(Boolean)[0];
  return `${u.protocol}//${u.host}/${first ? `${first}/…` : "…"}`;
}
