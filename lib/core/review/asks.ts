import type { Ask, AskRollupBy, AskRollupRow, AskTally, StoredEvent } from "@/lib/core/protocol";
import { emptyRuns, foldEvents } from "@/lib/core/projection/fold";

/**
 * Asks where people look back ([ASKR1], [ASKR3], [ASKR6] in docs/REVIEW.md): how long each
 * waited for its answer, how a run's (or a group's) asks ended, and the median and 90th
 * percentile of the waits. Pure: the run page, compare, rollups and their tests call it alike.
 */

/**
 * A run's asks from its events (ascending) through the one projection: what a share link's
 * view (which holds only its events) shows, and what the `asks` read model holds for the run.
 * A range that starts after the run did folds no asks (there is no run to fold them into).
 */
export function asksFrom(runId: string, events: readonly StoredEvent[]): Ask[] {
  return foldEvents(emptyRuns(), events).asks[runId] ?? [];
}

/** How long a person took to answer: from the ask to the answer (server times); null when nobody answered. */
export function waitMs(ask: Pick<Ask, "created_at" | "answer">): number | null {
  return ask.answer ? Math.max(0, Date.parse(ask.answer.at) - Date.parse(ask.created_at)) : null;
}

/**
 * How an ask ended, in one word: `denied` (a person answered deny), `answered` (any other
 * answer), `expired` (nobody answered in time: the agent's default applied), `withdrawn`
 * (answered at the agent, the run finished, cancelled) or `waiting` (still open).
 */
export type AskEnd = "answered" | "denied" | "expired" | "withdrawn" | "waiting";

export function askEnd(ask: Pick<Ask, "state" | "answer" | "closed_reason">): AskEnd {
  if (ask.answer) return ask.answer.decision === "deny" ? "denied" : "answered";
  if (ask.state === "closed") return ask.closed_reason === "expired" ? "expired" : "withdrawn";
  return "waiting";
}

/**
 * The q-quantile of values (0 ≤ q ≤ 1) as PostgreSQL's `percentile_cont` computes it: linear
 * between the two nearest ranks of the sorted values. Null for no values.
 */
export function quantile(values: readonly number[], q: number): number | null {
  if (!values.length) return null;
  const v = [...values].sort((a, b) => a - b);
  const at = (v.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, v.length - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - lo);
}

// The shapes live with the API's schemas (lib/core/protocol/ask-rollups.ts); the pages import them from here.
export type { AskRollupBy, AskRollupRow, AskTally };

const rounded = (n: number | null) => (n === null ? null : Math.round(n));

/** The facts of an ask a tally needs: what the run page has, and what a rollup's query reads. */
export type TalliedAsk = Pick<Ask, "state" | "answer" | "closed_reason" | "created_at">;

export function askTally(asks: readonly TalliedAsk[]): AskTally {
  const ends: Record<AskEnd, number> = { answered: 0, denied: 0, expired: 0, withdrawn: 0, waiting: 0 };
  const waits: number[] = [];
  for (const a of asks) {
    ends[askEnd(a)]++;
    const w = waitMs(a);
    if (w !== null) waits.push(w);
  }
  return {
    count: asks.length,
    ...ends,
    // `answered` counts every answer a person gave, a denial too; `denied` the denials among them.
    answered: ends.answered + ends.denied,
    expired_share: asks.length ? ends.expired / asks.length : null,
    p50_ms: rounded(quantile(waits, 0.5)),
    p90_ms: rounded(quantile(waits, 0.9)),
  };
}

/** An ask as a rollup reads it: its tally facts and its run's agent. */
export type RolledAsk = TalliedAsk & { agent: string | null };

/**
 * Asks per person who answered (asks nobody answered under `null`) or per agent, the
 * groups with the most asks first, then by key (`null` last).
 */
export function askRollup(asks: readonly RolledAsk[], by: AskRollupBy): AskRollupRow[] {
  const groups = new Map<string | null, RolledAsk[]>();
  for (const a of asks) {
    const key = by === "person" ? (a.answer?.person_id ?? null) : a.agent;
    const g = groups.get(key);
    if (g) g.push(a);
    else groups.set(key, [a]);
  }
  return [...groups]
    .map(([key, g]) => ({ key, ...askTally(g) }))
    .sort((x, y) => y.count - x.count || (x.key === null ? 1 : y.key === null ? -1 : x.key.localeCompare(y.key)));
}
