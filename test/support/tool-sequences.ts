import fc from "fast-check";
import type { RunSlot } from "./run-slots";

/**
 * Tool calls in the property test's sequences ([TOOL2], [TOOL4]): a call started, an open one
 * finished (with an outcome, an exit code, a duration or not), or a whole call seen only at its
 * end — under the step it names, or under whatever step is active. The world sends only what
 * the judge takes: a finish picks an open call, else it is a whole call.
 */
export const toolIntent = fc.record({
  t: fc.constant("tool" as const),
  run: fc.nat(3),
  how: fc.constantFrom("start", "finish", "finish", "whole"),
  pick: fc.nat(5),
  named: fc.boolean(),
  outcome: fc.constantFrom("ok", "ok", "failed", "denied", "cancelled"),
  timed: fc.boolean(),
});
export type ToolIntent = typeof toolIntent extends fc.Arbitrary<infer T> ? T : never;

/** The event type and fields a tool intent sends for a run, keeping the run's open calls. */
export function toolEvent(run: RunSlot, i: ToolIntent): { type: string; fields: Record<string, unknown> } {
  const step = i.named && run.steps.length ? { step_id: run.steps[i.pick % run.steps.length] } : {};
  if (i.how === "start" || (i.how === "finish" && !run.openCalls.length && i.pick % 2 === 0)) {
    const id = `call-${++run.calls}`;
    run.openCalls.push(id);
    return {
      type: "tool.started",
      fields: { call_id: id, tool: i.pick % 2 ? "Bash" : "Edit", summary: `do ${id}`, ...step },
    };
  }
  const end = {
    outcome: i.outcome,
    ...(i.outcome === "failed" ? { exit_code: 2 } : {}),
    ...(i.timed ? { duration_ms: 10 * i.pick } : {}),
  };
  if (i.how === "finish" && run.openCalls.length) {
    const [id] = run.openCalls.splice(i.pick % run.openCalls.length, 1);
    return { type: "tool.finished", fields: { call_id: id, ...end } };
  }
  const id = `call-${++run.calls}`;
  return {
    type: "tool.finished",
    fields: { call_id: id, tool: "exec_command", summary: `ran ${id}`, ...step, ...end },
  };
}
