import { describe, expect, it } from "vitest";
import { newId, type StoredEvent } from "../lib/core/protocol";
import { expiredText, ifUnanswered, unansweredText } from "../lib/core/projection/asks";
import { emptyRuns, foldEvents } from "../lib/core/projection/fold";
import { storedEvents } from "./support/stored-events";

/**
 * [ASK8] What an unanswered ask comes to, without a server: the fold carries what the ask said
 * (an ask that said nothing reads `deny`), and the words every surface shows follow it. The
 * API's answer and Chips' close are test/asks-lifecycle.test.ts's; the connect hook's
 * test/connect-claude-asks-edges.client.test.ts's; the schema's test/support/schema-edges.ts.
 */

const ws = newId("workspace");
const space = newId("space");
const runId = newId("run");
const actor = { kind: "harness" as const, id: newId("harness") };
const at = storedEvents({ workspace_id: ws, space_id: space, run_id: runId }, Date.UTC(2026, 2, 1, 10));
const stored = (type: string, fields: Record<string, unknown>) => at(type, actor, fields);

const permission = (fields: Record<string, unknown> = {}) =>
  stored("run.asked", {
    ask_id: newId("ask"),
    kind: "permission",
    tool: "Bash",
    summary: "make",
    expires_in_seconds: 60,
    ...fields,
  });

function folded(events: StoredEvent[]) {
  return foldEvents(emptyRuns(), [stored("run.started", { goal: "Ship it" }), ...events]).asks[runId];
}

describe("[ASK8] an ask says what happens if nobody answers", () => {
  it("[ASK8] the fold carries if_unanswered; an ask without it reads deny, and a question's deny is no answer", () => {
    const [terminal, agent, old] = folded([
      permission({ if_unanswered: "ask_in_terminal" }),
      permission({ if_unanswered: "agent_default" }),
      permission(),
    ]);
    expect([terminal, agent, old].map((a) => a.request.if_unanswered)).toEqual([
      "ask_in_terminal",
      "agent_default",
      undefined,
    ]);
    expect([terminal, agent, old].map(ifUnanswered)).toEqual(["ask_in_terminal", "agent_default", "deny"]);
    expect([terminal, agent, old].map(unansweredText)).toEqual([
      "left to the prompt in the agent’s terminal",
      "the agent’s own default applies",
      "the agent’s safe default applies (deny)",
    ]);
    expect(unansweredText({ request: { kind: "question", question: "Which?" } })).toBe(
      "the agent goes on without an answer",
    );
  });

  it("[ASK8] an expired close says the default the agent named, else what the ask said would apply", () => {
    const terminal = permission({ if_unanswered: "ask_in_terminal" });
    const old = permission();
    const agent = permission({ if_unanswered: "agent_default" });
    const close = (e: StoredEvent, more: Record<string, unknown> = {}) =>
      stored("run.ask_closed", { ask_id: (e as { ask_id: string }).ask_id, reason: "expired", ...more });
    const asks = folded([
      terminal,
      old,
      agent,
      close(terminal),
      close(old, { applied_default: "deny" }),
      close(agent, { applied_default: "cancelled" }),
    ]);
    expect(asks.map((a) => [a.state, expiredText(a)])).toEqual([
      ["closed", "left to the prompt in the agent’s terminal"],
      ["closed", "deny applied"],
      ["closed", "cancelled applied"],
    ]);
  });
});
