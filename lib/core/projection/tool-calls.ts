import {
  TOOL_LIMITS,
  type CallTally,
  type Run,
  type RunTools,
  type Step,
  type StoredEvent,
  type ToolCall,
} from "@/lib/core/protocol";

/**
 * How a tool call changes its run ([TOOL4]): the run's tally (count, failed, open, time), its
 * newest calls for the panel, a tally per tool, and each step's count and time. One pure
 * fold, called by the run fold (run.ts) — so the writer's read models, the live room and a
 * replay agree — and by the run page's list of calls (lib/core/review/tool-calls.ts), which
 * puts each call under the step this fold puts it under.
 */

type Started = Extract<StoredEvent, { type: "tool.started" }>;
type Finished = Extract<StoredEvent, { type: "tool.finished" }>;

const noTools = (): RunTools => ({ count: 0, failed: 0, running: 0, ms: 0, last: [], open: [], by_tool: [] });

/**
 * The step a call belongs to: the one it names, else the step active when it started — the
 * one that went active last, when several are. Null outside every step.
 */
function stepOfCall(plan: readonly Step[], named: string | undefined): string | null {
  if (named !== undefined) return named;
  let at: Step | null = null;
  for (const s of plan) if (s.state === "active" && (!at || (s.updated_seq ?? 0) > (at.updated_seq ?? 0))) at = s;
  return at ? at.step_id : null;
}

/** A call's time: as the agent measured it, else from the server's time of its start to its finish. */
function durationOf(e: Finished, startedTs: string | null): number | null {
  if (e.duration_ms !== undefined) return e.duration_ms;
  return startedTs === null ? null : Math.max(0, Date.parse(e.ts) - Date.parse(startedTs));
}

const add = (t: CallTally | undefined, calls: number, failed: boolean, ms: number | null): CallTally => ({
  count: (t?.count ?? 0) + calls,
  failed: (t?.failed ?? 0) + (failed ? 1 : 0),
  ms: (t?.ms ?? 0) + (ms ?? 0),
});

function tallyStep(plan: Step[], stepId: string | null, calls: number, failed: boolean, ms: number | null): Step[] {
  if (stepId === null) return plan;
  return plan.map((s) => (s.step_id === stepId ? { ...s, tools: add(s.tools, calls, failed, ms) } : s));
}

function tallyTool(by: RunTools["by_tool"], tool: string, calls: number, failed: boolean, ms: number | null) {
  const at = by.findIndex((t) => t.tool === tool);
  if (at < 0) return by.length < TOOL_LIMITS.tools ? [...by, { tool, ...add(undefined, calls, failed, ms) }] : by;
  return by.map((t, i) => (i === at ? { tool, ...add(t, calls, failed, ms) } : t));
}

const newest = (last: ToolCall[], call: ToolCall) => [...last, call].slice(-TOOL_LIMITS.last);

/** `tool.started`: the call is counted, open, newest on the panel, and tallied under its step. */
export function callStarted(run: Run, e: Started): Pick<Run, "tools" | "plan"> {
  const t = run.tools ?? noTools();
  const step = stepOfCall(run.plan, e.step_id);
  const call: ToolCall = {
    call_id: e.call_id,
    tool: e.tool,
    summary: e.summary,
    step_id: step,
    seq: e.seq,
    ts: e.ts,
    outcome: null,
    exit_code: null,
    duration_ms: null,
    finished_seq: null,
  };
  const open = [...t.open, { call_id: e.call_id, tool: e.tool, step_id: step, ts: e.ts }];
  return {
    tools: {
      ...t,
      count: t.count + 1,
      running: open.length,
      last: newest(t.last, call),
      open,
      by_tool: tallyTool(t.by_tool, e.tool, 1, false, null),
    },
    plan: tallyStep(run.plan, step, 1, false, null),
  };
}

/**
 * `tool.finished`: an open call ends (its failure and time go to its step and tool), or a
 * whole call — one never started, which the judge lets in only with its tool and summary
 * ([TOOL2]) — is counted at once.
 */
export function callFinished(run: Run, e: Finished): Pick<Run, "tools" | "plan"> {
  const t = run.tools ?? noTools();
  const open = t.open.find((o) => o.call_id === e.call_id);
  const failed = e.outcome === "failed";
  const ms = durationOf(e, open ? open.ts : null);
  const ended = { outcome: e.outcome, exit_code: e.exit_code ?? null, duration_ms: ms, finished_seq: e.seq };
  if (open) {
    const rest = t.open.filter((o) => o !== open);
    return {
      tools: {
        ...t,
        failed: t.failed + (failed ? 1 : 0),
        running: rest.length,
        ms: t.ms + (ms ?? 0),
        last: t.last.map((c) => (c.call_id === e.call_id ? { ...c, ...ended } : c)),
        open: rest,
        by_tool: tallyTool(t.by_tool, open.tool, 0, failed, ms),
      },
      plan: tallyStep(run.plan, open.step_id, 0, failed, ms),
    };
  }
  const step = stepOfCall(run.plan, e.step_id);
  const tool = e.tool ?? "";
  const call: ToolCall = {
    call_id: e.call_id,
    tool,
    summary: e.summary ?? "",
    step_id: step,
    seq: e.seq,
    ts: e.ts,
    ...ended,
  };
  return {
    tools: {
      ...t,
      count: t.count + 1,
      failed: t.failed + (failed ? 1 : 0),
      ms: t.ms + (ms ?? 0),
      last: newest(t.last, call),
      by_tool: tallyTool(t.by_tool, tool, 1, failed, ms),
    },
    plan: tallyStep(run.plan, step, 1, failed, ms),
  };
}

/**
 * The run ends: a call still open never reported its end — it ends with the run, cancelled
 * (no time: nobody measured it), as an active step ends with the run.
 */
export function callsEnded(tools: RunTools | null, e: StoredEvent): RunTools | null {
  if (!tools || !tools.open.length) return tools;
  const open = new Set(tools.open.map((o) => o.call_id));
  return {
    ...tools,
    running: 0,
    open: [],
    last: tools.last.map((c) =>
      open.has(c.call_id) && c.outcome === null ? { ...c, outcome: "cancelled", finished_seq: e.seq } : c,
    ),
  };
}
