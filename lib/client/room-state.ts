import type { FeedEvent } from "./room-feed";
import type { ChangeSetPayload, CheckpointPayload, RunRequest } from "@/lib/runner";
import { normalizeRun, projectRunnerEvent, queuedRun, RUNNER_DEFAULTS } from "./runner-runs";

export { normalizeRun };

/** A plan step as the run panel draws it ([UI1]). */
export interface StepView {
  step_id: string;
  title: string;
  state: "pending" | "active" | "done" | "failed" | "skipped";
  note?: string;
}

export interface StatusView {
  phase: string;
  verb_phrase: string;
  progress?: number;
  estimate_seconds?: number;
  /** Server time the status was stored. */
  ts: string;
  actor: ActorView;
}

export interface ActorView {
  kind: string;
  id: string;
  harness_id?: string;
}

/** A run as the room shows it: the server's read model, kept current by events. */
export interface RunView {
  id: string;
  space_id: string;
  harness_id: string | null;
  actor: ActorView | null;
  state: "queued" | "running" | "paused" | "finished";
  pending: string | null;
  goal: string;
  goal_from: "harness" | "chips" | null;
  session_ref: string | null;
  plan: StepView[];
  status: StatusView | null;
  usage: { input_tokens: number; output_tokens: number; cached_input_tokens?: number; cost_usd?: number } | null;
  outcome: "succeeded" | "failed" | "cancelled" | null;
  summary: string | null;
  started_seq: number | null;
  started_at: string | null;
  finished_at: string | null;
  /** What a person asked a runner for (`run.queued`); null for a run a harness posted itself. */
  request: RunRequest | null;
  /** The runner that took a queued run (`run.assigned`). */
  runner: { id: string; name: string } | null;
  /** The runner's latest checkpoint commit, its change-set, its failure, its last log line (`runner.event`). */
  checkpoint: CheckpointPayload | null;
  change_set: ChangeSetPayload | null;
  runner_error: string | null;
  last_log: string | null;
}

export type TimelineItem =
  | { kind: "message"; seq: number; id: string; ts: string; actor: ActorView; text: string; goalOf?: string }
  | { kind: "run"; seq: number; id: string; ts: string; runId: string }
  | { kind: "notice"; seq: number; id: string; ts: string; actor: ActorView; text: string };

/** One command's receipt line on its run ([UI5]). */
export interface ReceiptView {
  command_id: string;
  command: "steer" | "pause" | "resume" | "cancel";
  text: string | null;
  person_id: string;
  receipt: "accepted" | "delivered" | "applied" | "rejected";
  reason: string | null;
  seq: number;
}

export interface PresenceView {
  online: boolean;
  /** Since when (server ms) it has been so. */
  since: number;
}

export interface RoomState {
  /** Timeline items, ascending by seq; never rearranged. */
  items: TimelineItem[];
  runs: Record<string, RunView>;
  /** Run id → its commands' receipts, oldest first. */
  receipts: Record<string, ReceiptView[]>;
  /** The oldest event held: history pages in before it; none older when its prev_seq is 0. */
  oldest: { seq: number; prev_seq: number } | null;
}

export const emptyRoom = (): RoomState => ({ items: [], runs: {}, receipts: {}, oldest: null });

export const hasOlder = (s: RoomState) => s.oldest !== null && s.oldest.prev_seq > 0;
const edge = (e: FeedEvent | undefined) => (e ? { seq: e.seq, prev_seq: e.prev_seq } : null);

type E = FeedEvent & Record<string, any>;

/** The room from the server's snapshot: its runs' read models and a page of events. */
export function roomFromSnapshot(runs: RunView[], events: FeedEvent[], receipts: ReceiptView[] = []): RoomState {
  // The read models are already current: the page only contributes timeline items.
  const byRun: Record<string, ReceiptView[]> = {};
  for (const r of receipts) (byRun[(r as ReceiptView & { run_id: string }).run_id] ??= []).push(r);
  return prependHistory({ items: [], runs: Object.fromEntries(runs.map((r) => [r.id, normalizeRun(r)])), receipts: byRun, oldest: null }, events);
}

/** Apply live events (ascending, new) to the room. */
export function applyEvents(state: RoomState, events: FeedEvent[]): RoomState {
  let runs = state.runs;
  let receipts = state.receipts;
  const items = [...state.items];
  for (const raw of events) {
    const e = raw as E;
    const item = timelineItem(e);
    // A queued run's card is where it was queued; its run.started moves it on, never re-posts it.
    if (item && !(item.kind === "run" && e.type === "run.started" && runs[e.run_id])) items.push(item);
    runs = projectRun(runs, e);
    if (e.type.startsWith("run.command")) ({ runs, receipts } = projectCommand(runs, receipts, e));
    if (e.type === "run.finished") receipts = settleReceipts(receipts, e.run_id);
  }
  return { items, runs, receipts, oldest: state.oldest ?? edge(events[0]) };
}

/** Older history (ascending, all before what is held) goes in front; run read models are not rewound. */
export function prependHistory(state: RoomState, older: FeedEvent[]): RoomState {
  if (!older.length) return state.oldest ? { ...state, oldest: { ...state.oldest, prev_seq: 0 } } : state;
  const items = older.map((e) => timelineItem(e as E)).filter((i): i is TimelineItem => !!i);
  return { ...state, items: oneCardPerRun([...items, ...state.items]), oldest: edge(older[0]) };
}

/** A run has one card, at the first event that made it (run.queued, or run.started when posted straight). */
function oneCardPerRun(items: TimelineItem[]): TimelineItem[] {
  const seen = new Set<string>();
  let dropped = false;
  const kept = items.filter((i) => {
    if (i.kind !== "run") return true;
    if (seen.has(i.runId)) return !(dropped = true);
    seen.add(i.runId);
    return true;
  });
  return dropped ? kept : items;
}

function timelineItem(e: E): TimelineItem | null {
  const base = { seq: e.seq, id: e.id, ts: e.ts as string };
  switch (e.type) {
    case "message.posted":
      return { kind: "message", ...base, actor: e.actor, text: e.text };
    case "run.queued":
    case "run.started":
      return { kind: "run", ...base, runId: e.run_id };
    case "room.updated":
      return { kind: "notice", ...base, actor: e.actor, text: "updated the room's intent and outcome" };
    case "decision.recorded":
      return { kind: "notice", ...base, actor: e.actor, text: `recorded a decision: ${e.title}` };
    case "task.saved":
      return { kind: "notice", ...base, actor: e.actor, text: `saved a task: ${e.title}` };
    default:
      return null; // statuses, steps, commands, assignments and runner events live on the run panel, never as messages ([UI2])
  }
}

/** The goal message of a goal_from:harness run, drawn just before its run card. */
export function goalMessage(item: Extract<TimelineItem, { kind: "run" }>, run: RunView | undefined): Extract<TimelineItem, { kind: "message" }> | null {
  if (!run || run.goal_from !== "harness") return null;
  return { kind: "message", seq: item.seq, id: `${item.id}-goal`, ts: item.ts, actor: { kind: "person", id: "" }, text: run.goal, goalOf: run.id };
}

function projectRun(runs: Record<string, RunView>, e: E): Record<string, RunView> {
  if (!e.run_id) return runs;
  const run = runs[e.run_id];
  const put = (r: RunView) => ({ ...runs, [r.id]: r });
  switch (e.type) {
    case "run.queued":
      return run ? runs : put(queuedRun(e));
    case "run.assigned":
      if (!run) return runs;
      return put({ ...run, runner: { id: e.runner_id, name: e.runner_name }, harness_id: e.runner_id });
    case "run.started": {
      const harness_id = e.actor.kind === "agent" ? (e.actor.harness_id ?? null) : e.actor.id;
      if (run?.state === "queued") {
        // A runner took a queued run: it keeps its card, its request and its assignment.
        const plan = (e.plan ?? []).map((p: { step_id: string; title: string }) => ({ step_id: p.step_id, title: p.title, state: "pending" as const }));
        return put({ ...run, state: "running", harness_id, goal: e.goal ?? run.goal, goal_from: e.goal_from ?? run.goal_from, session_ref: e.session_ref ?? null, plan: plan.length ? plan : run.plan });
      }
      return put({
        ...RUNNER_DEFAULTS,
        ...(run ?? {}),
        id: e.run_id,
        space_id: e.space_id,
        harness_id,
        actor: e.actor,
        state: "running",
        pending: null,
        goal: e.goal,
        goal_from: e.goal_from ?? null,
        session_ref: e.session_ref ?? null,
        plan: (e.plan ?? []).map((p: { step_id: string; title: string }) => ({ step_id: p.step_id, title: p.title, state: "pending" as const })),
        status: null,
        usage: run?.usage ?? null,
        outcome: null,
        summary: null,
        started_seq: e.seq,
        started_at: e.ts,
        finished_at: null,
      });
    }
    case "runner.event":
      return run ? put(projectRunnerEvent(run, e)) : runs;
    case "run.status":
      if (!run) return runs;
      return put({
        ...run,
        status: { phase: e.phase, verb_phrase: e.verb_phrase, progress: e.progress, estimate_seconds: e.estimate_seconds, ts: e.ts, actor: e.actor },
        usage: e.usage ?? run.usage,
      });
    case "run.step": {
      if (!run) return runs;
      const at = run.plan.findIndex((s) => s.step_id === e.step_id);
      const next: StepView = { ...(at >= 0 ? run.plan[at] : { step_id: e.step_id, title: e.title }), state: e.state, ...(e.title ? { title: e.title } : {}), ...(e.note ? { note: e.note } : {}) };
      return put({ ...run, plan: at >= 0 ? run.plan.map((s, i) => (i === at ? next : s)) : [...run.plan, next] });
    }
    case "run.finished":
      if (!run) return runs;
      return put({
        ...run,
        state: "finished",
        pending: null,
        outcome: e.outcome,
        summary: e.summary ?? null,
        usage: e.usage ?? run.usage,
        finished_at: e.ts,
        plan: run.plan.map((s) => (s.state === "active" ? { ...s, state: e.outcome === "succeeded" ? "done" : "failed" } : s)),
      });
    default:
      return runs;
  }
}

const PENDING = { pause: "pausing", resume: "resuming", cancel: "cancelling" } as const;

/** How command events move a receipt and, once applied, their run ([RUN1]). */
function projectCommand(runs: Record<string, RunView>, receipts: Record<string, ReceiptView[]>, e: E) {
  const run = runs[e.run_id];
  const list = receipts[e.run_id] ?? [];
  const at = list.findIndex((r) => r.command_id === e.command_id);
  const put = (r: ReceiptView) => ({ ...receipts, [e.run_id]: at >= 0 ? list.map((x, i) => (i === at ? r : x)) : [...list, r] });
  switch (e.type) {
    case "run.command": {
      const receipt: ReceiptView = { command_id: e.command_id, command: e.command, text: e.text ?? null, person_id: e.actor.id, receipt: "accepted", reason: null, seq: e.seq };
      if (at >= 0) return { runs, receipts };
      const pending = e.command in PENDING ? PENDING[e.command as keyof typeof PENDING] : (run?.pending ?? null);
      const queuedCancel = e.command === "cancel" && run?.state === "queued";
      return {
        runs: run && !queuedCancel ? { ...runs, [run.id]: { ...run, pending } } : runs,
        receipts: put(queuedCancel ? { ...receipt, receipt: "applied", reason: "cancelled before a runner took it" } : receipt),
      };
    }
    case "run.command_delivered":
      if (at < 0 || list[at].receipt !== "accepted") return { runs, receipts };
      return { runs, receipts: put({ ...list[at], receipt: "delivered" }) };
    case "run.command_acked": {
      if (at < 0) return { runs, receipts };
      const cmd = list[at];
      const next = put({ ...cmd, receipt: e.result, reason: e.reason ?? null });
      if (!run || !(cmd.command in PENDING) || run.state === "finished") return { runs, receipts: next };
      const cleared = { ...run, pending: null };
      const state = e.result === "applied" && cmd.command === "pause" ? "paused" : e.result === "applied" && cmd.command === "resume" ? "running" : run.state;
      return { runs: { ...runs, [run.id]: { ...cleared, state } }, receipts: next };
    }
    default:
      return { runs, receipts };
  }
}

/** A finished run's open commands are settled by the server as rejected; the room says the same. */
function settleReceipts(receipts: Record<string, ReceiptView[]>, runId: string): Record<string, ReceiptView[]> {
  const list = receipts[runId];
  if (!list?.some((r) => r.receipt === "accepted" || r.receipt === "delivered")) return receipts;
  return {
    ...receipts,
    [runId]: list.map((r) => (r.receipt === "accepted" || r.receipt === "delivered" ? { ...r, receipt: "rejected", reason: "the run finished before the harness answered" } : r)),
  };
}
