import type { Receipt, Run, Step, StoredEvent } from "@/lib/core/protocol";
import type { Between, RunLog } from "./run-log";

/**
 * What the run page tells of a finished (or running) run, from its read model, its
 * commands' receipts and its log: the plan as bars in time, the plan against what happened,
 * and each command's audit. Pure: the page and tests call the same functions.
 */

/** A span of time, ISO 8601 ends. */
interface Span {
  from: string;
  to: string;
}

/** One bar of the Gantt view: a plan step's start, end and state; the paused spans inside it are waiting. */
export interface StepBar {
  step_id: string;
  title: string;
  state: Step["state"];
  start: string | null;
  end: string | null;
  duration_ms: number | null;
  /** Paused while the step was active: waiting, not working. */
  waiting_ms: number;
  waiting: Span[];
}

const ms = (a: string, b: string) => Date.parse(b) - Date.parse(a);

/** When the run was paused: from each applied pause to the applied resume (or the run's end). */
function pausedSpans(run: Run, receipts: Receipt[]): Span[] {
  const out: Span[] = [];
  let from: string | null = null;
  for (const r of [...receipts].sort((a, b) => (a.ack_seq ?? a.seq) - (b.ack_seq ?? b.seq))) {
    if (r.receipt !== "applied" || !r.acked_at) continue;
    if (r.command === "pause" && from === null) from = r.acked_at;
    if (r.command === "resume" && from !== null) {
      out.push({ from, to: r.acked_at });
      from = null;
    }
  }
  if (from !== null) out.push({ from, to: run.finished_at ?? run.updated_at });
  return out;
}

function overlap(a: Span, b: Span): Span | null {
  const from = Date.parse(a.from) > Date.parse(b.from) ? a.from : b.from;
  const to = Date.parse(a.to) < Date.parse(b.to) ? a.to : b.to;
  return Date.parse(to) > Date.parse(from) ? { from, to } : null;
}

/** The plan as bars: each step from when it went active to when it ended (or the run's end, or now for a live run). */
export function stepBars(run: Run, receipts: Receipt[], now: string): StepBar[] {
  const paused = pausedSpans(run, receipts);
  return run.plan.map((s) => {
    const start = s.started_at ?? null;
    const end = s.finished_at ?? (start ? (run.finished_at ?? now) : null);
    const waiting =
      start && end ? paused.map((p) => overlap(p, { from: start, to: end })).filter((x): x is Span => !!x) : [];
    return {
      step_id: s.step_id,
      title: s.title,
      state: s.state,
      start,
      end,
      duration_ms: start && end ? ms(start, end) : null,
      waiting_ms: waiting.reduce((n, w) => n + ms(w.from, w.to), 0),
      waiting,
    };
  });
}

/** How a step fared against the plan the run started with. */
export type PlanMark = "as-planned" | "skipped" | "added" | "out-of-order" | "unfinished" | "failed";

export interface PlanLine {
  step_id: string;
  title: string;
  /** Its place in the plan the run started with; null for a step added later. */
  planned_at: number | null;
  /** Its place in the order steps were begun; null when it never began. */
  begun_at: number | null;
  state: Step["state"];
  marks: PlanMark[];
}

/**
 * The plan against what happened: steps skipped, added after the start, begun out of the
 * planned order, or left unfinished (never begun or still active when the run ended), and
 * failed ones. `events` are the run's, ascending.
 */
export function planVsActual(run: Run, events: readonly StoredEvent[]): PlanLine[] {
  const started = events.find((e): e is Extract<StoredEvent, { type: "run.started" }> => e.type === "run.started");
  const planned = (started?.plan ?? []).map((p) => p.step_id);
  const begun = run.plan
    .filter((s) => s.started_at)
    .sort(
      (a, b) => Date.parse(a.started_at!) - Date.parse(b.started_at!) || (a.updated_seq ?? 0) - (b.updated_seq ?? 0),
    );
  const order = new Map(begun.map((s, i) => [s.step_id, i]));
  return run.plan.map((s) => {
    const at = planned.indexOf(s.step_id);
    const marks: PlanMark[] = [];
    if (s.state === "skipped") marks.push("skipped");
    if (s.added || at < 0) marks.push("added");
    // Begun before a step planned ahead of it had begun.
    if (at >= 0 && order.has(s.step_id)) {
      const earlier = planned
        .slice(0, at)
        .filter((id) => !run.plan.find((p) => p.step_id === id && p.state === "skipped"));
      if (earlier.some((id) => !order.has(id) || order.get(id)! > order.get(s.step_id)!)) marks.push("out-of-order");
    }
    if (s.state === "failed") marks.push("failed");
    if (run.state === "finished" && (s.state === "pending" || s.state === "active")) marks.push("unfinished");
    if (!marks.length) marks.push("as-planned");
    return {
      step_id: s.step_id,
      title: s.title,
      planned_at: at >= 0 ? at : null,
      begun_at: order.get(s.step_id) ?? null,
      state: s.state,
      marks,
    };
  });
}

/** One command as the audit shows it: who, when, how long to delivery and to the answer, and what the run did meanwhile. */
export interface CommandAudit {
  receipt: Receipt;
  to_delivered_ms: number | null;
  to_answer_ms: number | null;
  /** The run's events stored between the press and the answer (or the run's last event while unanswered), by seq. */
  between: Between;
}

/** Each command's audit line; `between` is the run log's (lib/core/review/run-log.ts), by command_id. */
export function commandAudit(receipts: Receipt[], between: RunLog["between"]): CommandAudit[] {
  return receipts.map((r) => ({
    receipt: r,
    to_delivered_ms: r.delivered_at ? ms(r.created_at, r.delivered_at) : null,
    to_answer_ms: r.acked_at ? ms(r.created_at, r.acked_at) : null,
    between: between[r.command_id] ?? { count: 0, events: [] },
  }));
}
