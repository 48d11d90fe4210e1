import type { Receipt, Run, StoredEvent } from "@/lib/core/protocol";
import { foldReceipts, type RunRecord } from "./receipts";
import { foldRun } from "./run";

/**
 * The one projection ([RUN1], [UI1], [UI5]): how a stored event changes its run and its
 * commands' receipts. The ingest writer folds each event it accepts with this (its read
 * models, in the same transaction); the room folds the live feed with it; a replay folds
 * the log up to any seq. One function, so the three can never disagree.
 */
export function foldRunEvent(rec: RunRecord, e: StoredEvent): RunRecord {
  if (!e.run_id) return rec;
  const run = foldRun(rec.run, e);
  return foldReceipts(rec.run, run, rec.receipts, e);
}

/** Runs and receipts of a room (or a workspace), by run id. */
export interface RunsView {
  runs: Record<string, Run>;
  /** Run id → its commands' receipts, oldest first. */
  receipts: Record<string, Receipt[]>;
}

export const emptyRuns = (): RunsView => ({ runs: {}, receipts: {} });

/** Fold events, in seq order, into runs and receipts: the room's live state, or a replay of the log. */
export function foldEvents(view: RunsView, events: readonly StoredEvent[]): RunsView {
  let { runs, receipts } = view;
  for (const e of events) {
    if (!e.run_id) continue;
    const before: RunRecord = { run: runs[e.run_id] ?? null, receipts: receipts[e.run_id] ?? [] };
    const after = foldRunEvent(before, e);
    if (after.run !== before.run) runs = after.run ? { ...runs, [e.run_id]: after.run } : runs;
    if (after.receipts !== before.receipts) receipts = { ...receipts, [e.run_id]: after.receipts };
  }
  return { runs, receipts };
}
