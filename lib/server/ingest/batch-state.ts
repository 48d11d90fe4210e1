import type { Ask, Decision, Receipt, RoomRevision, Run } from "@/lib/core/protocol";
import type { Limits, MicroSpend } from "@/lib/core/projection/budget";
import type { StoredRef } from "@/db/ingest-sql";

/** What the batch's dedupe needs of an already-stored (or just-accepted) event. */
type KnownEvent = Pick<StoredRef, "hash" | "body">;

/** The key of a room's decision in {@link BatchState.decisions}: ids are unique per room. */
export const decisionKey = (spaceId: string, decisionId: string) => `${spaceId} ${decisionId}`;

/**
 * The writer's view of the store for one group-commit batch: what it loaded before the
 * batch plus what earlier requests of the batch were accepted with. Every change goes
 * through `set`, which logs the old value, so a refused request rolls back exactly its
 * own changes (all-or-nothing) and leaves its neighbours' alone.
 */
export class BatchState {
  readonly byKey = new Map<string, KnownEvent>();
  readonly byId = new Map<string, KnownEvent>();
  /** `${run_id}:${sequence}` of runner events ([RN2]). */
  readonly byRunnerSeq = new Map<string, KnownEvent>();
  /** Run id → its highest runner event sequence so far ([RN2]: sequences rise strictly). */
  readonly runnerHeads = new Map<string, number>();
  /** Run id → run of this workspace, or null when the id is unknown here. */
  readonly runs = new Map<string, Run | null>();
  /** Run ids taken by another workspace. */
  readonly foreignRuns = new Set<string>();
  /** Space id → seq of its newest event (spaces of this workspace only). */
  readonly spaceHeads = new Map<string, number>();
  /** Command id → its receipt read model; and the stored ack of acked ones (an ack's replay). */
  readonly commands = new Map<string, Receipt | null>();
  readonly ackBodies = new Map<string, string>();
  /** Commands a run's end settled (rejected: the run finished first); written with the batch. */
  readonly settled = new Map<string, true>();
  /** Space id → its room's current revision, for the rooms the batch's events judge or change ([ROOM1]). */
  readonly rooms = new Map<string, RoomRevision>();
  /** `${space_id} ${decision_id}` → the decision, for the decisions the batch's events name ([DEC1]). */
  readonly decisions = new Map<string, Decision>();
  /**
   * Budgets ([BUD1]–[BUD3]), loaded only for a batch that reports usage or starts a run
   * (`budgetDay` is then the UTC day judged): subject → limits, harness → spend this day and
   * month, and `${harness} ${day}` → the usage the batch adds, written with it.
   */
  budgetDay: string | null = null;
  readonly budgets = new Map<string, Limits>();
  readonly spend = new Map<string, MicroSpend>();
  readonly usage = new Map<string, { tokens: number; micro: number }>();
  /** `${run_id} ${call_id}` of every tool call a run's log holds, of those the batch names ([TOOL2]). */
  readonly calls = new Map<string, true>();
  /**
   * Ask id → the ask of this workspace ([ASK1]–[ASK6]): those the batch's events name, and the
   * unsettled asks of their runs (a run's waiting count is folded from all of them).
   */
  readonly asks = new Map<string, Ask>();
  /** Ask ids taken by another workspace. */
  readonly foreignAsks = new Set<string>();
  /** The stored `run.answer_applied` / `run.ask_closed` of a settled ask (a repeat replays it). */
  readonly askSettles = new Map<string, string>();
  /** Asks the batch made or moved: written with it. */
  readonly askChanges = new Map<string, true>();
  /** Agent id → harness id ([ENV11]). */
  readonly agents = new Map<string, string>();
  seq: number;

  private undo: Array<() => void> = [];

  constructor(seqHead: number) {
    this.seq = seqHead;
  }

  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    const had = map.has(key);
    const old = map.get(key);
    this.undo.push(() => (had ? map.set(key, old as V) : map.delete(key)));
    map.set(key, value);
  }

  nextSeq(): number {
    const before = this.seq;
    this.undo.push(() => (this.seq = before));
    return ++this.seq;
  }

  /** Start a request: its changes can be rolled back until `commitRequest`. */
  beginRequest(): void {
    this.undo = [];
  }

  rollbackRequest(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]();
    this.undo = [];
  }

  commitRequest(): void {
    this.undo = [];
  }
}
