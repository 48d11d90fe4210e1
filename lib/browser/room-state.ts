import type { Actor, Ask, Decision, Frame, Receipt, RoomRevision, Run, StoredEvent, Task } from "@/lib/core/protocol";
import { emptyRuns, foldEvents } from "@/lib/core/projection/fold";
import { firstRevision, foldRoom } from "@/lib/core/projection/room";
import { foldDecisions, type Decisions } from "@/lib/core/projection/decisions";
import { foldTasks, type Tasks } from "@/lib/core/projection/tasks";

export type TimelineItem =
  | { kind: "message"; seq: number; id: string; ts: string; actor: Actor; text: string; goalOf?: string }
  | { kind: "run"; seq: number; id: string; ts: string; runId: string }
  | { kind: "ask"; seq: number; id: string; ts: string; runId: string; askId: string; actor: Actor }
  | { kind: "notice"; seq: number; id: string; ts: string; actor: Actor; text: string; runId?: string };

export interface PresenceView {
  online: boolean;
  /** Since when (server ms) it has been so. */
  since: number;
}

/**
 * The room as the browser holds it: its timeline, and its runs and receipts as the one
 * projection (lib/core/projection/) folds them — the same code the server's read models run.
 */
export interface RoomState {
  /** Timeline items, ascending by seq; never rearranged. */
  items: TimelineItem[];
  runs: Record<string, Run>;
  /** Run id → its commands' receipts, oldest first. */
  receipts: Record<string, Receipt[]>;
  /** Run id → its asks, oldest first ([ASK4]). */
  asks: Record<string, Ask[]>;
  /** The oldest event held: history pages in before it; none older when its prev_seq is 0. */
  oldest: { seq: number; prev_seq: number } | null;
  /** The room's intent and outcome at its current revision (docs/PROTOCOL.md §6), folded like the runs. */
  room: RoomRevision;
  /** The room's decisions by id ([DEC1]). */
  decisions: Decisions;
  /** The room's tasks by id ([TSK1]), folded by the server's own `foldTasks`; `taskViews` gives their status. */
  tasks: Tasks;
}

export const emptyRoom = (workspaceId = "", spaceId = ""): RoomState => ({
  items: [],
  ...emptyRuns(),
  oldest: null,
  room: firstRevision(workspaceId, spaceId),
  decisions: {},
  tasks: {},
});

/** What the page (or a snapshot) says of the room's own state, read after its events. */
export interface RoomStateSnapshot {
  room: RoomRevision;
  decisions: Decision[];
  tasks: Task[];
}

export const hasOlder = (s: RoomState) => s.oldest !== null && s.oldest.prev_seq > 0;
/** An event the room folds: live or paged ones carry their space's previous seq; a replayed log's need not. */
type RoomEvent = StoredEvent & { prev_seq?: number };
const edge = (e: RoomEvent | undefined) => (e ? { seq: e.seq, prev_seq: e.prev_seq ?? 0 } : null);

/** The room from the server's snapshot (or the page): its runs' read models and a page of events. */
export function roomFromSnapshot(
  runs: Run[],
  events: Frame[],
  receipts: Receipt[],
  state: RoomStateSnapshot,
  asks: Ask[] = [],
): RoomState {
  // The read models are already current: the page only contributes timeline items.
  const byRun: Record<string, Receipt[]> = {};
  for (const r of receipts) (byRun[r.run_id] ??= []).push(r);
  const asksByRun: Record<string, Ask[]> = {};
  for (const a of asks) (asksByRun[a.run_id] ??= []).push(a);
  return prependHistory(
    {
      items: [],
      runs: Object.fromEntries(runs.map((r) => [r.id, r])),
      receipts: byRun,
      asks: asksByRun,
      oldest: null,
      room: state.room,
      decisions: Object.fromEntries(state.decisions.map((d) => [d.decision_id, d])),
      tasks: Object.fromEntries(state.tasks.map((t) => [t.task_id, t])),
    },
    events,
  );
}

/** Apply live events (ascending, new) to the room. */
export function applyEvents(state: RoomState, events: readonly RoomEvent[]): RoomState {
  const items = [...state.items];
  const queued = new Set<string>();
  for (const e of events) {
    const item = timelineItem(e);
    // A queued run's card is where it was queued; its run.started moves it on, never re-posts it
    // (also when both arrive in one batch: a catch-up, a replay's fold).
    if (item?.kind === "run" && e.type === "run.started" && (state.runs[item.runId] || queued.has(item.runId)))
      continue;
    if (item?.kind === "run" && e.type === "run.queued") queued.add(item.runId);
    if (item) items.push(item);
  }
  const { runs, receipts, asks } = foldEvents(state, events);
  const room = events.reduce(foldRoom, state.room);
  const decisions = events.reduce(foldDecisions, state.decisions);
  const tasks = events.reduce(foldTasks, state.tasks);
  return { items, runs, receipts, asks, oldest: state.oldest ?? edge(events[0]), room, decisions, tasks };
}

/** Older history (ascending, all before what is held) goes in front; run read models are not rewound. */
export function prependHistory(state: RoomState, older: Frame[]): RoomState {
  if (!older.length) return state.oldest ? { ...state, oldest: { ...state.oldest, prev_seq: 0 } } : state;
  const items = older.map(timelineItem).filter((i): i is TimelineItem => !!i);
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

function timelineItem(e: StoredEvent): TimelineItem | null {
  const base = { seq: e.seq, id: e.id, ts: e.ts };
  switch (e.type) {
    case "message.posted":
      return { kind: "message", ...base, actor: e.actor, text: e.text };
    case "run.queued":
    case "run.started":
      return { kind: "run", ...base, runId: e.run_id! };
    case "room.updated":
      return {
        kind: "notice",
        ...base,
        actor: e.actor,
        text: `saved revision ${e.revision} of the room's intent and outcome`,
      };
    case "decision.recorded":
      return { kind: "notice", ...base, actor: e.actor, text: `recorded a decision: ${e.title}` };
    case "task.saved":
      return { kind: "notice", ...base, actor: e.actor, text: `saved a task: ${e.title}` };
    case "run.annotated":
      return { kind: "notice", ...base, actor: e.actor, text: annotationText(e) };
    case "run.notice":
      // [DRV1] what Chips could not do to a run (a budget's pause of a watch-only run): said in the room.
      return { kind: "notice", ...base, actor: e.actor, text: e.text, runId: e.run_id! };
    case "run.asked":
      // [ASK4] the ask's card; what became of it is the run's ask, folded from the events after it.
      return { kind: "ask", ...base, runId: e.run_id!, askId: e.ask_id, actor: e.actor };
    default:
      return null; // statuses, steps, commands, assignments and runner events live on the run panel, never as messages ([UI2])
  }
}

const VERDICT = { approved: "approved", needs_work: "asked for more work on", rejected: "rejected" } as const;

/** "approved a run: Looks right", "commented on a run's step (seq 12): …" — a notice, never markdown. */
function annotationText(e: Extract<StoredEvent, { type: "run.annotated" }>): string {
  const what =
    e.target.kind === "event"
      ? `a run's event #${e.target.seq}`
      : e.target.kind === "diff"
        ? `${e.target.path}:${e.target.line} of a run's diff`
        : "a run";
  const verb = e.verdict ? VERDICT[e.verdict] : "commented on";
  const comment = e.comment ? `: ${e.comment.length > 200 ? `${e.comment.slice(0, 199)}…` : e.comment}` : "";
  return `${verb} ${what}${comment}`;
}
