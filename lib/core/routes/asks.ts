import { z } from "zod";
import { AnswerBody, InboxAnswer, RunAsksAnswer, Ask } from "../protocol/asks";
import { StoredEvent } from "../protocol/events";
import { count, route, storedOrReplay } from "../protocol/route";
import { Webhook, WebhookBody, WebhookDelivery } from "../protocol/webhooks";

/**
 * Asking people ([ASK1]–[ASK7], docs/PROTOCOL.md "Asking people"): a person answers an ask
 * (the first answer wins), a run's asks and one ask (long-polled by a hook with no socket),
 * the workspace's inbox, and an owner's webhooks for new asks with their deliveries.
 */

/** The longest a long-poll on an ask waits, seconds. */
const WAIT_MAX = 30;

export const ASK_ROUTES = {
  answerAsk: route({
    method: "post",
    path: "/api/v1/runs/:run/asks/:ask/answer",
    summary: "A person answers an ask; the first answer wins, a later one is told whose it was ([ASK2])",
    tag: "Asks",
    who: { kinds: ["person"], may: "write", refusal: "answers come from people: use a session or a person token" },
    body: { schema: AnswerBody, maxBytes: 64 * 1024, what: "bad answer" },
    answers: storedOrReplay(StoredEvent, "the stored `run.answered`"),
    errors: [
      "run_not_found",
      "ask_not_found",
      "ask_closed",
      "run_finished",
      "invalid_transition",
      "idempotency_key_reused",
      "rate_limited",
      "overloaded",
    ],
  }),
  runAsks: route({
    method: "get",
    path: "/api/v1/runs/:run/asks",
    summary: "The run's asks with their receipts, oldest first ([ASK4])",
    tag: "Asks",
    who: {},
    scope: "run",
    answers: { 200: { description: "the asks", schema: RunAsksAnswer } },
    errors: [],
  }),
  oneAsk: route({
    method: "get",
    path: "/api/v1/runs/:run/asks/:ask",
    summary: `One ask; with \`wait\` (at most ${WAIT_MAX} s) held while it waits for a person — a harness's wait counts as its presence`,
    tag: "Asks",
    who: {},
    scope: "run",
    query: z.object({ wait: count("wait", 0, WAIT_MAX) }),
    answers: { 200: { description: "the ask as it is (check `state`)", schema: Ask } },
    errors: ["forbidden", "ask_not_found"],
  }),
  inbox: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/asks",
    summary: "The inbox: asks of the workspace's rooms, oldest first — `open` those waiting for a person, not expired",
    tag: "Asks",
    who: {},
    scope: "workspace",
    query: z.object({ state: z.enum(["open", "all"]).default("open"), limit: count("limit", 200, 1000) }),
    answers: { 200: { description: "the asks with their rooms' and runs' names", schema: InboxAnswer } },
    errors: [],
  }),
};

export const WEBHOOK_ROUTES = {
  addWebhook: route({
    method: "post",
    path: "/api/v1/workspaces/:ws/webhooks",
    summary: "An owner adds a Slack-compatible webhook for new asks ([ASK7]); its URL is answered whole only here",
    tag: "Asks",
    who: { may: "manage" },
    scope: "workspace",
    body: { schema: WebhookBody, maxBytes: 8 * 1024, what: "bad webhook" },
    answers: {
      201: { description: "the webhook", schema: z.object({ id: z.string(), name: z.string(), url: z.string() }) },
    },
    errors: [],
  }),
  webhooks: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/webhooks",
    summary: "The workspace's webhooks, each with a hint of its URL and its deliveries' counts",
    tag: "Asks",
    who: { may: "manage" },
    scope: "workspace",
    answers: { 200: { description: "the webhooks", schema: z.object({ webhooks: z.array(Webhook) }) } },
    errors: [],
  }),
  removeWebhook: route({
    method: "delete",
    path: "/api/v1/workspaces/:ws/webhooks/:webhook",
    summary: "Remove a webhook: nothing more is sent to it; its deliveries stay readable",
    tag: "Asks",
    who: { may: "manage" },
    scope: "workspace",
    answers: { 200: { description: "removed", schema: z.object({ removed: z.string() }) } },
    errors: ["not_found"],
  }),
  webhookDeliveries: route({
    method: "get",
    path: "/api/v1/workspaces/:ws/webhooks/:webhook/deliveries",
    summary: "A webhook's deliveries, newest first: state, attempts, the last status or error",
    tag: "Asks",
    who: { may: "manage" },
    scope: "workspace",
    query: z.object({ limit: count("limit", 100, 1000) }),
    answers: { 200: { description: "the deliveries", schema: z.object({ deliveries: z.array(WebhookDelivery) }) } },
    errors: ["not_found"],
  }),
};
