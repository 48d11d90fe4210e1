import { expect, type Locator, type Page } from "@playwright/test";
import {
  lastUserText,
  resultText,
  say,
  startMessagesServer,
  toolResultsSinceUser,
  type Block,
  type MessagesServer,
} from "../../test/support/messages-server";
import type { Harness } from "./api";
import { RunPanelView, TypingIndicatorView } from "./run-panel";

/**
 * What the asks specs with real agent CLIs share: the ask card as a person finds it (by its
 * accessible name) and answers it (by its buttons' names), what the page says while a run
 * waits, and the run's ask trail in the log — for any agent (the Codex spec uses them too);
 * and, for Claude Code, a scripted model that makes one call per turn and then says `FINAL`.
 */

/** How long the real agent may take for a step on a busy 2-core machine. */
export const AGENT = 60_000;

/**
 * A model that makes the calls `byPrompt[prompt]` lists, one per turn, then answers
 * `FINAL <what each call's result said>`. Requests of Claude Code's own (a title…) get "ok".
 */
export function stepsModel(byPrompt: Record<string, Block[]>): Promise<MessagesServer> {
  return startMessagesServer(({ messages, body }) => {
    if (!body.tools?.some((t: { name?: string }) => t.name === "Bash")) return { blocks: [say("ok")] };
    const steps = byPrompt[lastUserText(messages) ?? ""];
    if (!steps) return { blocks: [say("?")] };
    const results = toolResultsSinceUser(messages);
    if (results.length < steps.length) return { blocks: [steps[results.length]] };
    return { blocks: [say(`FINAL ${results.map((r) => resultText(r)).join(" | ")}`)] };
  });
}

/** Whether a request the model got holds `text` in a tool result (what the agent was told). */
export const modelWasTold = (m: MessagesServer, text: string) =>
  m.requests.some((r) => toolResultsSinceUser(r.messages).some((t) => resultText(t).includes(text)));

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The card of the Bash call whose command holds `fragment`, found as a person (or a screen reader) would: by its name. */
export function permissionCard(page: Page, fragment: string): Locator {
  return page.getByRole("region", { name: new RegExp(`asks permission: Bash: .*${escape(fragment)}`) });
}

/** Press Allow on a card once it waits for a person. */
export async function clickAllow(card: Locator): Promise<void> {
  const allow = card.getByRole("button", { name: "Allow", exact: true });
  await expect(allow).toBeEnabled({ timeout: AGENT });
  await allow.click();
}

/** Write why in the card's note, then press Deny. */
export async function clickDeny(card: Locator, note: string): Promise<void> {
  const deny = card.getByRole("button", { name: "Deny", exact: true });
  await expect(deny).toBeEnabled({ timeout: AGENT });
  await card.getByRole("textbox", { name: /^Note for the agent/ }).fill(note);
  await deny.click();
}

/**
 * The card says who answered what and that the agent applied it (the receipt reached the page),
 * in its words: a connect hook's receipt says the answer reached Claude Code ([ASK4]).
 */
export async function expectApplied(
  card: Locator,
  label: "Allow" | "Deny",
  receipt = "applied by the agent",
): Promise<void> {
  const outcome = card.getByTestId("ask-outcome");
  await expect(outcome).toHaveAttribute("data-receipt", "applied", { timeout: AGENT });
  await expect(outcome).toContainText(`Owner answered ${label}`);
  await expect(outcome).toContainText(receipt);
  await expect(card.getByRole("button")).toHaveCount(0);
}

/**
 * [UI2] [ASK4] The run waits for a person, and the page says only that: "needs you" on its
 * panel and in the rail, no typing indicator and no status line claiming the command runs.
 */
export async function expectWaiting(page: Page, runId: string, command: string): Promise<void> {
  await expect(new RunPanelView(page, runId).root.getByTestId("run-needs-you")).toBeVisible({ timeout: AGENT });
  const rail = page.getByRole("complementary", { name: "Active runs" });
  await expect(rail.getByTestId("run-needs-you")).toBeVisible();
  await expect(new TypingIndicatorView(page, runId).root).toHaveCount(0);
  await expect(rail).not.toContainText(command);
}

/** The run's ask events in log order, `type[:via|:decision|:result|:reason]`. */
export async function askTrail(harness: Harness, runId: string): Promise<string[]> {
  return (await harness.events())
    .filter((e) => e.run_id === runId && /^run\.(asked|ask_|answer)/.test(e.type))
    .map((e) => [e.type, e.via ?? e.decision ?? e.result ?? e.reason].filter(Boolean).join(":"));
}
