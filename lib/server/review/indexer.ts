import type { Database } from "@/db/client";
import { eventsAfter, indexPosition, runsById, startIndex, writeIndex, type IndexRow } from "@/db/review-sql";
import { runOf } from "@/db/run-rows";
import type { Run, StoredEvent } from "@/lib/core/protocol";
import { facetsOf } from "@/lib/core/review/facets";
import { askWords, failureWords, searchTextOf, toolWords, words } from "@/lib/core/review/search-text";
import { log } from "../log";
import { CallRows } from "./call-rows";

/** Events read per round. */
const ROUND = 2000;
/**
 * A commit is indexed this long after it, so a workspace's commits of one second share one
 * round (four statements): a read never waits for it, it settles the index first. At 50 ms
 * a workspace taking a few events a second paid a round for each, four statements beside the
 * writer's one (docs/PERFORMANCE.md, "Many teams on one node").
 */
const DELAY_MS = 1000;

/**
 * Keeps `run_index` (docs/REVIEW.md) in step with the log, after commit and off the ingest
 * path: each round reads the workspace's events past its cursor, the runs they touched (the
 * read models the writer keeps with the one projection), and writes those runs' facets and
 * new search words in one statement guarded by the cursor. Commits schedule a round; a read
 * of the index first `settle`s it, so a page is never older than the log it was asked after.
 * Rounds of one workspace run one at a time here; another node indexing the same events
 * first makes ours store nothing, and ours reads on from where that one left the cursor.
 */
export class ReviewIndexer {
  private chains = new Map<string, Promise<void>>();
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(private database: Database) {}

  /**
   * A commit happened in a workspace: index it soon, if it touched a run — only runs are
   * indexed; events outside runs are passed over by the next round that reads past them.
   */
  committed(workspaceId: string, batch: readonly { event: { run_id?: string | null } }[]): void {
    if (this.closed || this.timers.has(workspaceId) || !batch.some((c) => c.event.run_id)) return;
    this.timers.set(
      workspaceId,
      setTimeout(() => {
        this.timers.delete(workspaceId);
        this.settle(workspaceId).catch((e) => log.warn({ err: e, workspaceId }, "review index round failed"));
      }, DELAY_MS),
    );
  }

  /** Index everything the workspace's log holds now. */
  settle(workspaceId: string): Promise<void> {
    const prev = this.chains.get(workspaceId) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(() => this.catchUp(workspaceId));
    this.chains.set(workspaceId, next);
    void next
      .finally(() => {
        if (this.chains.get(workspaceId) === next) this.chains.delete(workspaceId);
      })
      .catch(() => {});
    return next;
  }

  /** Nothing outlives its round here: a timer lasts until its round starts, a chain until it ends ([SCL1]). */
  release(): void {}

  held() {
    return { indexTimers: this.timers.size, indexRounds: this.chains.size };
  }

  /** Stop scheduling rounds and wait for the ones under way, so none outlives the database. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.chains.values()]);
  }

  private async catchUp(workspaceId: string): Promise<void> {
    const run = this.database.run;
    let pos = await indexPosition(run, workspaceId);
    if (pos.head === null) return;
    if (pos.cursor === null) {
      await startIndex(run, workspaceId);
      pos = await indexPosition(run, workspaceId);
    }
    let cursor = pos.cursor ?? 0;
    // Up to the head read above: "now" for a settle. Commits after it are not chased here —
    // each scheduled a round of its own (`committed`). Chasing them made the rounds run back
    // to back under steady ingest, ~1 commit each: at 16 single-event clients more statements
    // (and WAL flushes) than the writer's own (docs/PERFORMANCE.md).
    // A closing server stops between rounds (close() waits for the one under way).
    while (!this.closed && cursor < (pos.head ?? 0)) {
      const events = await eventsAfter(run, workspaceId, cursor, ROUND);
      if (!events.length) return;
      const to = events[events.length - 1].seq;
      const touched = new Map<string, { words: Set<string>; person: string | null }>();
      const calls = new CallRows();
      for (const row of events) {
        if (!row.runId) continue;
        const e = JSON.parse(row.body) as StoredEvent;
        let t = touched.get(row.runId);
        if (!t) touched.set(row.runId, (t = { words: new Set(), person: null }));
        const text = searchTextOf(e);
        if (text) for (const w of words(text)) t.words.add(w);
        for (const w of toolWords(e)) t.words.add(w);
        for (const w of askWords(e)) t.words.add(w);
        calls.add(e);
        if (e.type === "run.queued" && e.actor.kind === "person") t.person = e.actor.id;
      }
      const models = (await runsById(run, [...touched.keys()])).map(runOf);
      for (const m of models) for (const w of failureWords(m)) touched.get(m.id)!.words.add(w);
      const rows = models.map((m) => indexRow(m, touched.get(m.id)!));
      if (!(await writeIndex(run, workspaceId, cursor, to, rows, calls.list()))) {
        // Someone else indexed from here: go on from where they left it.
        pos = await indexPosition(run, workspaceId);
        cursor = pos.cursor ?? 0;
        continue;
      }
      cursor = to;
    }
  }
}

function indexRow(run: Run, t: { words: Set<string>; person: string | null }): IndexRow {
  return {
    run_id: run.id,
    workspace_id: run.workspace_id,
    space_id: run.space_id,
    state: run.state,
    outcome: run.outcome,
    goal: run.goal,
    goal_from: run.goal_from,
    harness_id: run.harness_id,
    person_id: t.person ?? (run.actor?.kind === "person" ? run.actor.id : null),
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    ...facetsOf(run),
    verdict: run.review?.verdict ?? null,
    annotations: run.review?.annotations ?? 0,
    last_seq: run.last_seq,
    words: [...t.words],
  };
}
