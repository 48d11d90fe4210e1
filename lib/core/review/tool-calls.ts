import type { OutputRef, Run, StoredEvent, ToolOutcome } from "@/lib/core/protocol";
import { foldRun } from "@/lib/core/projection/run";

/**
 * A run's tool calls as the run page lists them ([TOOL6]): each call whole — what it was and
 * how it ended — under the step the one fold (lib/core/projection/tool-calls.ts) put it in.
 * The run page reads a window of the run's tool events; this folds it with the run's plan
 * events through the run fold itself, so a call sits under the same step whose count and
 * time the read model gives. Pure: the page, a share link's view and tests call it alike.
 */

/** Tool events the run page reads (a call is two): the first this many, in seq order. */
export const CALL_EVENTS = 1000;
/** Calls the run page lists. */
const CALLS_SHOWN = 200;

export interface RunCall {
  call_id: string;
  tool: string;
  summary: string;
  input: string | null;
  step_id: string | null;
  seq: number;
  ts: string;
  /** Null while it runs (or when its end lies past the window read). */
  outcome: ToolOutcome | null;
  exit_code: number | null;
  duration_ms: number | null;
  output: string | null;
  output_bytes: number | null;
  output_ref: OutputRef | null;
  files: string[];
  error: string | null;
}

type ToolEvent = Extract<StoredEvent, { type: "tool.started" | "tool.finished" }>;

function callOf(e: ToolEvent, step: string | null): RunCall {
  return {
    call_id: e.call_id,
    tool: e.tool ?? "",
    summary: e.summary ?? "",
    input: e.input ?? null,
    step_id: step,
    seq: e.seq,
    ts: e.ts,
    outcome: null,
    exit_code: null,
    duration_ms: null,
    output: null,
    output_bytes: null,
    output_ref: null,
    files: [],
    error: null,
  };
}

/** The fold's own verdict on the call it just folded: its step, its time. */
const folded = (run: Run | null, callId: string) => run?.tools?.last.find((c) => c.call_id === callId);

/**
 * The calls of `events` (a run's, ascending: its start and steps, and a window of its tool
 * events), the first `shown` of them, and whether more calls started than are listed.
 */
export function callsOf(events: readonly StoredEvent[], shown = CALLS_SHOWN): { list: RunCall[]; more: boolean } {
  let run: Run | null = null;
  const list: RunCall[] = [];
  const byId = new Map<string, RunCall>();
  let more = false;
  for (const e of events) {
    run = foldRun(run, e);
    if (e.type !== "tool.started" && e.type !== "tool.finished") continue;
    const known = byId.get(e.call_id);
    if (e.type === "tool.finished" && known) {
      Object.assign(known, {
        outcome: e.outcome,
        exit_code: e.exit_code ?? null,
        // The fold's rule: the agent's time, else the server's from start to end.
        duration_ms: e.duration_ms ?? Math.max(0, Date.parse(e.ts) - Date.parse(known.ts)),
        output: e.output ?? null,
        output_bytes: e.output_bytes ?? null,
        output_ref: e.output_ref ?? null,
        files: e.files ?? [],
        error: e.error ?? null,
      });
      continue;
    }
    if (list.length >= shown) {
      more = true;
      continue;
    }
    const call = callOf(e, folded(run, e.call_id)?.step_id ?? e.step_id ?? null);
    if (e.type === "tool.finished")
      Object.assign(call, {
        outcome: e.outcome,
        exit_code: e.exit_code ?? null,
        duration_ms: e.duration_ms ?? null,
        output: e.output ?? null,
        output_bytes: e.output_bytes ?? null,
        output_ref: e.output_ref ?? null,
        files: e.files ?? [],
        error: e.error ?? null,
      });
    list.push(call);
    byId.set(e.call_id, call);
  }
  return { list, more };
}

/** The calls grouped by step, in the plan's order, then those outside every step. */
export function callsByStep(run: Run, calls: readonly RunCall[]) {
  const steps = run.plan.map((s) => ({
    step_id: s.step_id as string | null,
    title: s.title,
    tally: s.tools ?? null,
    calls: calls.filter((c) => c.step_id === s.step_id),
  }));
  const outside = calls.filter((c) => c.step_id === null || !run.plan.some((s) => s.step_id === c.step_id));
  return outside.length ? [...steps, { step_id: null, title: "Outside any step", tally: null, calls: outside }] : steps;
}
