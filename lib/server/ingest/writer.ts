import { problem, type ProblemError, type StoredEvent } from "@/lib/core/protocol";
import type { Database, Run } from "@/db/client";
import { lockWorkspace } from "@/db/ingest-sql";
import { applyRequest, type Accepted, type Unrecorded } from "./apply";
import { askOf, assumed, load, write, type KnownHeads } from "./persist";
import type { BatchState } from "./batch-state";
import type { IngestRequest } from "./request";
import { isStorageGone, unavailable } from "../storage";
import { log } from "../log";

export type IngestResult = { ok: true; bodies: string[]; created: boolean } | { ok: false; problem: ProblemError };

export interface WriterOptions {
  /** Most events one transaction takes. */
  maxBatchEvents: number;
  /** Most events waiting per workspace before `503 overloaded`. */
  maxQueueEvents: number;
  /** Called after each commit with the new events in seq order. */
  onCommit?: (workspaceId: string, committed: Committed[]) => void;
  now?: () => Date;
  /**
   * Refresh the planner's statistics of `events` every this many events committed here
   * (docs/PERFORMANCE.md: a grown workspace made the dedupe lookup pick the wrong index).
   */
  analyzeEvery?: number;
  /** Told when a transaction failed because the database went away (the batch is answered 503). */
  onStorageGone?: (e: unknown) => void;
}

/** A newly stored event as it leaves the writer: the event, its exact JSON, and its space's previous seq. */
export interface Committed {
  readonly event: StoredEvent;
  readonly body: string;
  readonly prevSeq: number | null;
}

interface Pending {
  req: IngestRequest;
  resolve: (r: IngestResult) => void;
}

type Outcome = { results: IngestResult[]; committed: Committed[]; unrecorded: Unrecorded[] };

/** Workspaces whose heads this node remembers (the most recently committed to). */
const KNOWN_WORKSPACES = 1000;

/**
 * One writer per workspace with group commit (docs/ARCHITECTURE.md): requests queue; the writer takes
 * what is waiting, judges each against the store and the batch so far, bumps the counter row
 * once, inserts, projects, commits, and only then answers and emits in seq order.
 */
export class IngestWriter {
  private queues = new Map<string, { items: Pending[]; events: number; running: boolean }>();
  /**
   * Each workspace's heads as this node's last commit to it left them, so the next batch that
   * needs nothing else of the store (fresh keys in known spaces: the common single event) is
   * judged without a read and committed in one round trip. Set only after a commit is
   * certain, dropped on any failure; a commit from another node moves the head, which the
   * guarded write sees.
   */
  private known = new Map<string, { heads: KnownHeads; at: number }>();

  constructor(
    private database: Database,
    private opts: WriterOptions,
  ) {}

  submit(workspaceId: string, req: IngestRequest): Promise<IngestResult> {
    let q = this.queues.get(workspaceId);
    if (!q) this.queues.set(workspaceId, (q = { items: [], events: 0, running: false }));
    if (q.events + req.events.length > this.opts.maxQueueEvents) {
      const p = problem("overloaded", "the workspace's write queue is full; retry shortly");
      return Promise.resolve({ ok: false, problem: { ...p, retryAfter: 1 } });
    }
    return new Promise((resolve) => {
      q.items.push({ req, resolve });
      q.events += req.events.length;
      if (!q.running) {
        const d = this.drain(workspaceId, q).finally(() => this.draining.delete(d));
        this.draining.add(d);
      }
    });
  }

  /** The queues being written now; a stopping server waits for them before closing the database. */
  private draining = new Set<Promise<void>>();

  /** Resolves once every queue is empty (requests queued meanwhile are written too). */
  async idle(): Promise<void> {
    while (this.draining.size) await Promise.allSettled([...this.draining]);
  }

  private async drain(workspaceId: string, q: { items: Pending[]; events: number; running: boolean }) {
    q.running = true;
    try {
      while (q.items.length) {
        // Let requests already on the wire reach the queue first, so they share this commit;
        // it costs one event-loop turn.
        await new Promise<void>((r) => setImmediate(r));
        const batch: Pending[] = [];
        let n = 0;
        while (q.items.length && (batch.length === 0 || n + q.items[0].req.events.length <= this.opts.maxBatchEvents)) {
          const p = q.items.shift()!;
          n += p.req.events.length;
          batch.push(p);
        }
        q.events -= n;
        await this.commitWithRetry(workspaceId, batch);
      }
    } finally {
      q.running = false;
      if (q.items.length === 0) this.queues.delete(workspaceId);
    }
  }

  /** A failed transaction (say, an event id taken at once by another workspace) is retried, then split. */
  private async commitWithRetry(workspaceId: string, batch: Pending[]) {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return this.finish(workspaceId, batch, await this.commit(workspaceId, batch));
      } catch (e) {
        // The database went away: committed or not, a retry with the same key is answered right.
        this.known.delete(workspaceId);
        if (isStorageGone(e)) {
          this.opts.onStorageGone?.(e);
          for (const p of batch) p.resolve({ ok: false, problem: unavailable() });
          return;
        }
        if (attempt === 1 && batch.length === 1) {
          log.error({ err: e, workspaceId }, "ingest transaction failed");
          batch[0].resolve({
            ok: false,
            problem: problem("internal", "the event could not be stored; retry with the same idempotency key"),
          });
          return;
        }
      }
    }
    for (const p of batch) await this.commitWithRetry(workspaceId, [p]);
  }

  private sinceAnalyze = 0;

  private finish(workspaceId: string, batch: Pending[], out: Outcome & { heads: KnownHeads | null }) {
    this.remember(workspaceId, out.heads);
    // [DRV1] a derived event refused, and its notice too: its cause stands; say so where operators look.
    for (const u of out.unrecorded)
      log.warn(
        { workspaceId, type: u.event.type, runId: u.event.run_id, problem: u.problem },
        "derived event not recorded",
      );
    batch.forEach((p, i) => p.resolve(out.results[i]));
    this.sinceAnalyze += out.committed.length;
    if (this.opts.analyzeEvery && this.sinceAnalyze >= this.opts.analyzeEvery) {
      this.sinceAnalyze = 0;
      void this.database.run("analyze events").catch((e) => log.warn({ err: e }, "analyze events failed"));
    }
    if (out.committed.length && this.opts.onCommit) {
      try {
        this.opts.onCommit(workspaceId, out.committed);
      } catch (e) {
        log.error({ err: e, workspaceId }, "onCommit listener failed");
      }
    }
  }

  /**
   * One statement reads everything the rules need (one snapshot, with the workspace's seq
   * head), the judging happens here in memory, and one statement stores it all, guarded by
   * that head: two round trips and no transaction to hold open. If another node committed
   * to the workspace in between, nothing was stored and the batch is judged again under the
   * counter row's lock, which no commit can pass (seq order = commit order either way).
   * A batch of fresh keys in spaces known from this node's last commit skips the read: it
   * is judged against those heads, and its write also stores nothing if one of its keys or
   * ids is stored after all (then it reads as above). One round trip a commit, then.
   */
  private async commit(workspaceId: string, batch: Pending[]) {
    const ask = askOf(
      workspaceId,
      batch.map((p) => p.req),
    );
    const known = this.known.get(workspaceId)?.heads;
    const guessed = known ? assumed(known, ask) : null;
    if (guessed) {
      const fast = await this.attempt(this.database.run, workspaceId, batch, guessed, { keys: ask.keys, ids: ask.ids });
      if (fast) return fast;
    }
    const state = await load(this.database.run, ask);
    const first = state === "moved" ? null : await this.attempt(this.database.run, workspaceId, batch, state);
    if (first) return first;
    return this.database.transact(async (run) => {
      // The lock goes out pipelined ahead of the read (no extra round trip), but is awaited:
      // a lost connection must fail this commit, never surface as an unhandled rejection.
      const lock = lockWorkspace(run, workspaceId);
      lock.catch(() => {}); // observed here so an early throw below cannot orphan it; awaited next
      const read = await load(run, ask);
      const locked = read === "moved" ? null : await this.attempt(run, workspaceId, batch, read);
      await lock;
      if (!locked) throw new Error("the workspace's head moved under its lock");
      return locked;
    });
  }

  /** The heads a commit left, once it is certain (a batch that stored nothing changes none). */
  private remember(workspaceId: string, heads: KnownHeads | null) {
    if (!heads) return;
    this.known.delete(workspaceId); // set again last: the map's order is least recently committed first
    this.known.set(workspaceId, { heads, at: Date.now() });
    if (this.known.size > KNOWN_WORKSPACES) this.known.delete(this.known.keys().next().value!);
  }

  /**
   * Forget the heads of workspaces with no commit here since `cutoff` ([SCL1]): the next
   * batch reads them (one round trip more, once). Queues go as they empty.
   */
  release(cutoff: number): void {
    for (const [ws, k] of this.known) {
      if (k.at >= cutoff) break; // least recently committed first: the rest are newer
      if (!this.queues.has(ws)) this.known.delete(ws);
    }
  }

  /** What this writer keeps now: queues being written, workspaces whose heads it remembers. */
  held() {
    return { writerQueues: this.queues.size, writerHeads: this.known.size };
  }

  /**
   * Judge the batch against `state` and store it. With `absent` (a state assumed, not read),
   * null also when the batch refuses everything (nothing to write proves the assumption)
   * or the write finds a key or id stored: the caller reads and judges again.
   */
  private async attempt(
    run: Run,
    workspaceId: string,
    batch: Pending[],
    state: BatchState | "gone",
    absent?: { keys: string[]; ids: string[] },
  ): Promise<(Outcome & { heads: KnownHeads | null }) | null> {
    if (state === "gone") {
      const p = problem("forbidden", "the workspace of this credential no longer exists");
      return {
        results: batch.map(() => ({ ok: false as const, problem: p })),
        committed: [],
        unrecorded: [],
        heads: null,
      };
    }
    const readHead = state.seq;
    const ts = (this.opts.now?.() ?? new Date()).toISOString();
    const results: IngestResult[] = [];
    const committed: Accepted[] = [];
    const unrecorded: Unrecorded[] = [];
    for (const { req } of batch) {
      const out = applyRequest(state, req, ts);
      if (!out.ok) {
        results.push(out);
        continue;
      }
      for (const a of out.accepted) committed.push(a);
      for (const u of out.unrecorded) unrecorded.push(u);
      results.push({ ok: true, bodies: out.answer, created: out.accepted.length > 0 });
    }
    if (!committed.length) return absent ? null : { results, committed, unrecorded, heads: null };
    const stored = await write(run, workspaceId, readHead, state, committed, absent ?? { keys: [], ids: [] });
    if (!stored) return null;
    const known = this.known.get(workspaceId)?.heads;
    // What this commit read (or assumed) of the space heads, now past it; the spaces known
    // before stay right only if this commit came straight after the one that left them.
    const spaces = known && known.head === readHead ? new Map(known.spaces) : new Map<string, number>();
    for (const [id, seq] of state.spaceHeads) spaces.set(id, seq);
    return { results, committed, unrecorded, heads: { head: state.seq, spaces } };
  }
}
