import { and, desc, eq, gte, lt } from "drizzle-orm";
import type { Db } from "@/db/client";
import { asks, runIndex } from "@/db/schema";
import { askRollup, type AskRollupBy, type AskRollupRow, type RolledAsk } from "@/lib/core/review/asks";

/** Asks one rollup reads at most: the newest of the range (the page says when it stopped there). */
const ROLLED_ASKS = 20_000;

const dayStart = (d: string) => `${d}T00:00:00.000Z`;
const nextDay = (d: string) => new Date(Date.parse(dayStart(d)) + 86_400_000).toISOString();

/**
 * Time to answer across a workspace's asks ([ASKR6]): per person who answered and per agent
 * of the asking run, the asks made within `from`/`to` (days, UTC, by when each was asked) —
 * read from the `asks` read model with each run's agent from the review index, then tallied
 * by the pure rollup (lib/core/review/asks.ts), so its percentiles are the unit-tested ones.
 */
export async function askRollups(
  db: Db,
  ws: string,
  q: { from?: string; to?: string },
): Promise<{ rows: Record<AskRollupBy, AskRollupRow[]>; asks: number; capped: boolean }> {
  const rows = await db
    .select({
      state: asks.state,
      answer: asks.answer,
      closed_reason: asks.closedReason,
      created_at: asks.createdAt,
      agent: runIndex.agent,
    })
    .from(asks)
    .leftJoin(runIndex, eq(runIndex.runId, asks.runId))
    .where(
      and(
        eq(asks.workspaceId, ws),
        q.from ? gte(asks.createdAt, dayStart(q.from)) : undefined,
        q.to ? lt(asks.createdAt, nextDay(q.to)) : undefined,
      ),
    )
    .orderBy(desc(asks.createdAt))
    .limit(ROLLED_ASKS + 1);
  const capped = rows.length > ROLLED_ASKS;
  const rolled: RolledAsk[] = (capped ? rows.slice(0, ROLLED_ASKS) : rows).map((r) => ({
    ...r,
    created_at: new Date(r.created_at).toISOString(),
  }));
  return {
    rows: { person: askRollup(rolled, "person"), agent: askRollup(rolled, "agent") },
    asks: rolled.length,
    capped,
  };
}
