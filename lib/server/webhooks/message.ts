import { clipUtf8, type StoredEvent } from "@/lib/core/protocol";
import { unansweredText } from "@/lib/core/projection/asks";

type Asked = Extract<StoredEvent, { type: "run.asked" }>;

/** Slack's mrkdwn escapes: the agent's words are text, never markup or a link. */
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The JSON a webhook gets for a new ask ([ASK7]): Slack's incoming-webhook shape — `text`
 * (what a notification shows) and `blocks` (the message) — which other chat tools take too.
 * The agent's text is escaped and cut to a few hundred bytes; the link opens the ask in its room.
 */
export function askMessage(e: Asked, names: { room: string; harness: string }, url: string): string {
  const what =
    e.kind === "permission"
      ? `asks permission: *${esc(e.tool ?? "")}* — ${esc(clipUtf8(e.summary ?? "", 500))}`
      : `asks: ${esc(clipUtf8(e.question ?? "", 1500))}`;
  const who = `${esc(names.harness)} in #${esc(names.room)}`;
  const expires = e.expires_in_seconds
    ? ` · unanswered in ${Math.round(e.expires_in_seconds / 60) || 1} min: ${unansweredText({ request: e })}`
    : "";
  return JSON.stringify({
    text: `${who} ${what} <${url}|Answer in Chips>`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `${who} ${what}` } },
      { type: "context", elements: [{ type: "mrkdwn", text: `<${url}|Answer in Chips>${expires}` }] },
    ],
  });
}
