import type { Ask, Receipt, Run, StoredEvent } from "@/lib/core/protocol";
import { foldAsks } from "./asks";
import { foldReceipts, type RunRecord } from "./receipts";
import { foldRun } from "./run";

/** A run with its commands' receipts and its asks: all one event of the run may change. */
export type RunFold = RunRecord & { asks: Ask[] };

/**
 * The one projection ([RUN1], [UI1], [UI5], [ASK4]): how a stored event changes its run, its
 * commands' receipts and its asks. The ingest writer folds each event it accepts with this (its read
 * models, in the same transaction); the room folds the live feed with it; a replay folds
 * the log up to any seq. One function, so the three can never disagree.
 */
export function foldRunEvent(rec: RunFold, e: StoredEvent): RunFold {
  if (!e.run_id) return rec;
  const run = foldRun(rec.run, e);
  const r = foldReceipts(rec.run, run, rec.receipts, e);
  const a = foldAsks(rec.run, r.run, rec.asks, e);
  return { run: a.run, receipts: r.receipts, asks: a.asks };
}

/** Runs, receipts and asks of a room (or a workspace), by run id. */
export interface RunsView {
  runs: Record<string, Run>;
  /** Run id → its commands' receipts, oldest first. */
  receipts: Record<string, Receipt[]>;
  /** Run id → its asks, oldest first ([ASK4]). */
  asks: Record<string, Ask[]>;
}

export const emptyRuns = (): RunsView => ({ runs: {}, receipts: {}, asks: {} });

/** Fold events, in seq order, into runs, receipts and asks: the room's live state, or a replay of the log. */
export function foldEvents(view: RunsView, events: readonly StoredEvent[]): RunsView {
  let { runs, receipts, asks } = view;
  for (const e of events) {
    if (!e.run_id) continue;
    const before: RunFold = {
      run: runs[e.run_id] ?? null,
      receipts: receipts[e.run_id] ?? [],
      asks: asks[e.run_id] ?? [],
    };
    const after = foldRunEvent(before, e);
    if (after.run !== before.run) runs = after.run ? { ...runs, [e.run_id]: after.run } : runs;
    if (after.receipts !== before.receipts) receipts = { ...receipts, [e.run_id]: after.receipts };
    if (after.asks !== before.asks) asks = { ...asks, [e.run_id]: after.asks };
  }
  return { runs, receipts, asks };
}
