import type { Budget, BudgetLimit, Usage } from "@/lib/core/protocol";

/**
 * Budgets (an agent's runs and budget are its harness's), pure: what a
 * usage report adds to its harness's spend ([BUD1]) and which limit a spend reaches ([BUD2]).
 * Cost is counted in integer micro-dollars so that sums are exact in any order.
 */

/** The limits of one budget, as the `budgets` table keeps them. */
export interface Limits {
  subject: string;
  tokensPerDay: number | null;
  tokensPerMonth: number | null;
  microUsdPerDay: number | null;
  microUsdPerMonth: number | null;
  warnAt: number;
}

/** Spend of the current UTC day and month. */
export interface MicroSpend {
  tokensDay: number;
  tokensMonth: number;
  microDay: number;
  microMonth: number;
}

export const NO_SPEND: MicroSpend = { tokensDay: 0, tokensMonth: 0, microDay: 0, microMonth: 0 };

/** The budget subject of the whole workspace. */
export const WORKSPACE_SUBJECT = "*";

export const toMicro = (usd: number) => Math.round(usd * 1_000_000);
const toUsd = (micro: number) => micro / 1_000_000;

const tokensOf = (u: Usage | null | undefined) => (u ? u.input_tokens + u.output_tokens : 0);

/**
 * What one report adds ([BUD1]): usage is cumulative per run, so the report adds what it
 * grew by since the run's previous one; a report lower than the previous adds nothing.
 */
export function usageDelta(
  before: Usage | null | undefined,
  after: Usage | null | undefined,
): { tokens: number; micro: number } {
  if (!after || after === before) return { tokens: 0, micro: 0 };
  return {
    tokens: Math.max(0, tokensOf(after) - tokensOf(before)),
    micro: Math.max(0, toMicro(after.cost_usd ?? 0) - toMicro(before?.cost_usd ?? 0)),
  };
}

export const addSpend = (s: MicroSpend, d: { tokens: number; micro: number }): MicroSpend => ({
  tokensDay: s.tokensDay + d.tokens,
  tokensMonth: s.tokensMonth + d.tokens,
  microDay: s.microDay + d.micro,
  microMonth: s.microMonth + d.micro,
});

export const sumSpend = (all: Iterable<MicroSpend>): MicroSpend => {
  let out = NO_SPEND;
  for (const s of all)
    out = {
      tokensDay: out.tokensDay + s.tokensDay,
      tokensMonth: out.tokensMonth + s.tokensMonth,
      microDay: out.microDay + s.microDay,
      microMonth: out.microMonth + s.microMonth,
    };
  return out;
};

/** Every limit of a budget with what is spent against it, in figures as the API shows them. */
function figures(b: Limits, s: MicroSpend): BudgetLimit[] {
  const all: [BudgetLimit["metric"], BudgetLimit["period"], number | null, number, (n: number) => number][] = [
    ["tokens", "day", b.tokensPerDay, s.tokensDay, (n) => n],
    ["tokens", "month", b.tokensPerMonth, s.tokensMonth, (n) => n],
    ["cost_usd", "day", b.microUsdPerDay, s.microDay, toUsd],
    ["cost_usd", "month", b.microUsdPerMonth, s.microMonth, toUsd],
  ];
  const set = all.flatMap(([metric, period, limit, spent, f]) =>
    limit === null
      ? []
      : [{ share: spent / limit, l: { subject: b.subject, metric, period, limit: f(limit), spent: f(spent) } }],
  );
  // Nearest to its limit first: that is the one the room shows and a refusal names.
  return set.sort((x, y) => y.share - x.share).map((x) => x.l);
}

/** [BUD2] The limit this spend has reached (spent ≥ limit), or null. */
export function exhaustedBy(b: Limits, s: MicroSpend): BudgetLimit | null {
  return figures(b, s).find((l) => l.spent >= l.limit) ?? null;
}

/** A budget's read model: its limits in API units, its spend, and where it stands. */
export function budgetOf(
  b: Limits & { workspaceId: string; setBy: string; setAt: string },
  name: string,
  s: MicroSpend,
): Budget {
  const nearest = figures(b, s)[0] ?? null;
  const state = !nearest
    ? "ok"
    : nearest.spent >= nearest.limit
      ? "exhausted"
      : nearest.spent >= b.warnAt * nearest.limit
        ? "warning"
        : "ok";
  return {
    workspace_id: b.workspaceId,
    subject: b.subject,
    name,
    tokens_per_day: b.tokensPerDay,
    tokens_per_month: b.tokensPerMonth,
    cost_usd_per_day: b.microUsdPerDay === null ? null : toUsd(b.microUsdPerDay),
    cost_usd_per_month: b.microUsdPerMonth === null ? null : toUsd(b.microUsdPerMonth),
    warn_at: b.warnAt,
    set_by: b.setBy,
    set_at: new Date(b.setAt).toISOString(),
    spent: {
      tokens_day: s.tokensDay,
      tokens_month: s.tokensMonth,
      cost_usd_day: toUsd(s.microDay),
      cost_usd_month: toUsd(s.microMonth),
    },
    state,
    limit: nearest,
  };
}

/** The reason a budget's pause carries ([BUD3]) and its refusal's detail. */
export const exhaustedReason = (l: BudgetLimit) =>
  `budget exhausted: ${l.subject === WORKSPACE_SUBJECT ? "the workspace's" : `${l.subject}'s`} ${l.metric === "tokens" ? "tokens" : "cost (USD)"} per ${l.period}: ${l.spent} of ${l.limit}`;
