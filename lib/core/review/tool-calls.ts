import type { OutputRef, Run, StoredEvent, ToolCall } from "@/lib/core/protocol";
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

/** A call as the run page lists it: the read model's call and what its events say in full. */
export type RunCall = ToolCall & {
  input: string | null;
  output: string | null;
  output_bytes: number | null;
  output_ref: OutputRef | null;
  files: string[];
  error: string | null;
};

type ToolEvent = Extract<StoredEvent, { type: "tool.started" | "tool.finished" }>;
type Finished = Extract<StoredEvent, { type: "tool.finished" }>;

/** What a call's end says in full. */
const endOf = (e: Finished) => ({
  output: e.output ?? null,
  output_bytes: e.output_bytes ?? null,
  output_ref: e.output_ref ?? null,
  files: e.files ?? [],
  error: e.error ?? null,
});

/**
 * A call as the one fold just made it (the newest of the run's calls: its step, and for a
 * whole call its end and time) — or, with no run to fold into (a share link's range that
 * starts after the run did), as its event says.
 */
function callOf(run: Run | null, e: ToolEvent): RunCall {
  const made: ToolCall = run?.tools?.last.find((c) => c.call_id === e.call_id) ?? {
    call_id: e.call_id,
    tool: e.tool ?? "",
    summary: e.summary ?? "",
    step_id: e.step_id ?? null,
    seq: e.seq,
    ts: e.ts,
    outcome: e.type === "tool.finished" ? e.outcome : null,
    exit_code: e.type === "tool.finished" ? (e.exit_code ?? null) : null,
    duration_ms: e.type === "tool.finished" ? (e.duration_ms ?? null) : null,
    finished_seq: e.type === "tool.finished" ? e.seq : null,
  };
  const ended =
    e.type === "tool.finished"
      ? endOf(e)
      : { output: null, output_bytes: null, output_ref: null, files: [], error: null };
  return { ...made, input: e.input ?? null, ...ended };
}

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
        finished_seq: e.seq,
        ...endOf(e),
      });
      continue;
    }
    if (list.length >= shown) {
      more = true;
      continue;
    }
    const call = callOf(run, e);
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
