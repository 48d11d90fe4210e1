import { problem, TOOL_LIMITS, type IncomingEvent, type ProblemError, type Run } from "@/lib/core/protocol";
import type { BatchState } from "./batch-state";

type ToolEvent = Extract<IncomingEvent, { type: "tool.started" | "tool.finished" }>;

export const callKey = (runId: string, callId: string) => `${runId} ${callId}`;

const refusal = (code: ProblemError["code"], detail: string, pointer: string) =>
  problem(code, detail, [{ pointer, message: detail }]);

/**
 * [TOOL2] A call's life in its run, judged against the run (its open calls) and its log (every
 * call_id it holds, `s.calls`): a call_id starts once; a finish ends an open call, or is a
 * whole call — one never started — which must say its tool and summary; a finished call does
 * not finish again; a named step must be in the plan; at most TOOL_LIMITS.open calls are open.
 * The run's own state (finished, queued) is judged before this, as for every run event.
 */
export function judgeTool(s: BatchState, run: Run, e: ToolEvent, base: string): ProblemError | null {
  const seen = s.calls.has(callKey(run.id, e.call_id));
  const open = run.tools?.open.some((o) => o.call_id === e.call_id) ?? false;
  if (e.type === "tool.started") {
    if (seen) return refusal("invalid_transition", "this run already has a call with this call_id", `${base}/call_id`);
    if ((run.tools?.running ?? 0) >= TOOL_LIMITS.open)
      return refusal(
        "invalid_transition",
        `${TOOL_LIMITS.open} calls of this run are open: finish one first`,
        `${base}/call_id`,
      );
  } else if (!open) {
    if (seen) return refusal("invalid_transition", "this call has already finished", `${base}/call_id`);
    if (!e.tool)
      return refusal("validation_failed", "a call that was never started needs its tool and summary", `${base}/tool`);
    if (!e.summary)
      return refusal(
        "validation_failed",
        "a call that was never started needs its tool and summary",
        `${base}/summary`,
      );
  }
  const step = open ? undefined : e.step_id;
  if (step !== undefined && !run.plan.some((p) => p.step_id === step))
    return refusal("validation_failed", "unknown step_id: the step must be in the run's plan", `${base}/step_id`);
  return null;
}
