import { newId, problem, type IncomingEvent, type ProblemError, type Run, type StoredEvent } from "@/lib/core/protocol";
import {
  addSpend,
  exhaustedBy,
  exhaustedReason,
  NO_SPEND,
  sumSpend,
  usageDelta,
  WORKSPACE_SUBJECT,
  type MicroSpend,
} from "@/lib/core/projection/budget";
import type { BatchState } from "./batch-state";

/**
 * Budgets in the writer (docs/ROOM-STATE.md): the pure arithmetic is
 * lib/core/projection/budget.ts; here it meets the batch — what a report adds ([BUD1]), which
 * new run is refused ([BUD2]) and which running runs a budget running out pauses ([BUD3]).
 */

const spendOf = (s: BatchState, subject: string): MicroSpend =>
  subject === WORKSPACE_SUBJECT ? sumSpend(s.spend.values()) : (s.spend.get(subject) ?? NO_SPEND);

/** [BUD2] A new run of these subjects (a harness or runner, and `*`) is refused while one of their budgets is exhausted. */
export function judgeBudget(s: BatchState, subjects: string[], pointer: string): ProblemError | null {
  for (const subject of subjects) {
    const b = s.budgets.get(subject);
    const reached = b && exhaustedBy(b, spendOf(s, subject));
    if (!reached) continue;
    const detail = exhaustedReason(reached);
    return { ...problem("budget_exhausted", detail, [{ pointer, message: detail }]), extensions: { budget: reached } };
  }
  return null;
}

/**
 * [BUD1] Add what a stored event's usage report grew its run's usage by to the run's harness's
 * spend (the batch's `usage` is written with it, as `tokens = tokens + delta`). [BUD3] When
 * that makes a budget of the harness (or of the workspace) exhausted, return a system pause,
 * with the reason, for each of the subject's running runs without a pending command.
 */
export function accountUsage(s: BatchState, before: Run | null, after: Run | null, e: StoredEvent): IncomingEvent[] {
  const harness = after?.harness_id;
  if (!s.budgetDay || !harness) return [];
  const d = usageDelta(before?.usage, after.usage);
  if (!d.tokens && !d.micro) return [];
  const day = e.ts.slice(0, 10);
  const k = `${harness} ${day}`;
  const had = s.usage.get(k) ?? { tokens: 0, micro: 0 };
  s.set(s.usage, k, { tokens: had.tokens + d.tokens, micro: had.micro + d.micro });
  // An imported event of another day counts on its own day, not against today's limits.
  if (day !== s.budgetDay) return [];
  const crossed = [harness, WORKSPACE_SUBJECT].flatMap((subject) => {
    const b = s.budgets.get(subject);
    return b && !exhaustedBy(b, spendOf(s, subject)) ? [{ subject, b }] : [];
  });
  s.set(s.spend, harness, addSpend(s.spend.get(harness) ?? NO_SPEND, d));
  const pauses: IncomingEvent[] = [];
  const paused = new Set<string>();
  for (const { subject, b } of crossed) {
    const reached = exhaustedBy(b, spendOf(s, subject));
    if (!reached) continue;
    for (const run of s.runs.values()) {
      if (!run || run.state !== "running" || run.pending || paused.has(run.id)) continue;
      if (subject !== WORKSPACE_SUBJECT && run.harness_id !== subject) continue;
      paused.add(run.id);
      pauses.push({
        v: 1,
        type: "run.command",
        id: newId("event"),
        workspace_id: run.workspace_id,
        space_id: run.space_id,
        run_id: run.id,
        command_id: newId("command"),
        command: "pause",
        text: exhaustedReason(reached),
      });
    }
  }
  return pauses;
}
