import fc from "fast-check";
import { newId } from "../../lib/core/protocol";
import { key } from "./api";
import type { RunSlot } from "./run-slots";

/**
 * Asks in the property test's sequences ([ASK1]–[ASK5]): a run's harness asks (a permission
 * or a question), a person answers, the harness says it applied or rejected the answer, or
 * closes an ask nobody answered. A run's end closes what still waits ([ASK5]), so nothing is
 * answered or closed on a finished run; an answer may still be reported after it.
 */
export const askIntents = {
  ask: fc.record({ t: fc.constant("ask" as const), run: fc.nat(3), kind: fc.constantFrom("permission", "question") }),
  answer: fc.record({ t: fc.constant("answer" as const), run: fc.nat(3), nth: fc.nat(2), how: fc.nat(3) }),
  applied: fc.record({
    t: fc.constant("ask-applied" as const),
    run: fc.nat(3),
    nth: fc.nat(2),
    result: fc.constantFrom("applied", "rejected"),
  }),
  close: fc.record({
    t: fc.constant("ask-close" as const),
    run: fc.nat(3),
    nth: fc.nat(2),
    reason: fc.constantFrom("expired", "answered_elsewhere", "cancelled"),
  }),
};
type AskIntent = {
  [K in keyof typeof askIntents]: (typeof askIntents)[K] extends fc.Arbitrary<infer T> ? T : never;
}[keyof typeof askIntents];

/** An ask as the world knows it: waiting for a person, answered (not yet reported), or done with. */
export interface AskSeen {
  id: string;
  kind: "permission" | "question";
  state: "open" | "answered" | "done";
}

const speaks = (r: RunSlot) => r.by === "harness" || r.taken;
const pick = <T>(xs: T[], nth: number) => xs[nth % xs.length];

/** Whether an ask intent may be sent for the run now. */
export function askApplies(i: AskIntent, r: RunSlot): boolean {
  const open = r.asks.some((a) => a.state === "open");
  switch (i.t) {
    case "ask":
      return speaks(r) && r.state === "running";
    case "answer":
      return r.state !== "finished" && open;
    case "ask-applied":
      return speaks(r) && r.asks.some((a) => a.state === "answered");
    case "ask-close":
      return speaks(r) && r.state !== "finished" && open;
  }
}

/** What the world sends for an ask intent: an event of the run's harness, or a person's answer. */
export function askRequest(
  i: AskIntent,
  r: RunSlot,
): { by: "harness" | "person"; path: string; body: Record<string, unknown> } {
  if (i.t === "ask") {
    const id = newId("ask");
    r.asks.push({ id, kind: i.kind, state: "open" });
    const fields =
      i.kind === "permission"
        ? { tool: "Bash", summary: `rm -rf ${id}`, command: `rm -rf ${id}` }
        : { question: "Which one?", options: [{ id: "a", label: "A" }], free_text: true };
    return { by: "harness", path: "/api/v1/events", body: { type: "run.asked", ask_id: id, kind: i.kind, ...fields } };
  }
  if (i.t === "answer") {
    const a = pick(
      r.asks.filter((x) => x.state === "open"),
      i.nth,
    );
    a.state = "answered";
    const body =
      a.kind === "permission"
        ? {
            decision: (["allow", "allow_for_run", "deny", "deny"] as const)[i.how],
            ...(i.how === 3 ? { note: "no" } : {}),
          }
        : i.how % 2
          ? { option_id: "a" }
          : { text: `typed ${i.how}` };
    return {
      by: "person",
      path: `/api/v1/runs/${r.id}/asks/${a.id}/answer`,
      body: { ...body, idempotency_key: key() },
    };
  }
  if (i.t === "ask-applied") {
    const a = pick(
      r.asks.filter((x) => x.state === "answered"),
      i.nth,
    );
    a.state = "done";
    return {
      by: "harness",
      path: "/api/v1/events",
      body: { type: "run.answer_applied", ask_id: a.id, result: i.result },
    };
  }
  const a = pick(
    r.asks.filter((x) => x.state === "open"),
    i.nth,
  );
  a.state = "done";
  return { by: "harness", path: "/api/v1/events", body: { type: "run.ask_closed", ask_id: a.id, reason: i.reason } };
}
