import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runIndex, toolCallIndex } from "@/db/schema";
import { resultRows } from "@/db/rows";
import type { RollupBy, RollupRow } from "@/lib/core/protocol";

/**
 * Rollups of a workspace's runs (docs/REVIEW.md, [ROL1]) from the review index: per day or
 * week (UTC, weeks from Monday, by when the run was made) or per harness, agent, person or
 * room — how many runs, how many of the finished failed, the median and 90th percentile of
 * the finished runs' durations (continuous percentiles, as PostgreSQL's percentile_cont),
 * and tokens and cost summed over the runs that reported them.
 */

/** Most groups one rollup answers (a year of days; the busiest harnesses, people…). */
const MAX_GROUPS = 400;

function keyOf(by: Exclude<RollupBy, "tool">): SQL {
  switch (by) {
    case "day":
      return sql`to_char(${runIndex.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
    case "week":
      return sql`to_char(date_trunc('week', ${runIndex.createdAt} at time zone 'UTC'), 'YYYY-MM-DD')`;
    case "harness":
      return sql`${runIndex.harnessId}`;
    case "agent":
      return sql`${runIndex.agent}`;
    case "person":
      return sql`${runIndex.personId}`;
    case "room":
      return sql`${runIndex.spaceId}`;
  }
}

const dayStart = (d: string) => `${d}T00:00:00.000Z`;
const nextDay = (d: string) => new Date(Date.parse(dayStart(d)) + 86_400_000).toISOString();

export async function rollup(
  db: Db,
  ws: string,
  q: { by: RollupBy; from?: string; to?: string },
): Promise<RollupRow[]> {
  if (q.by === "tool") return toolRollup(db, ws, q);
  const key = keyOf(q.by);
  const where = and(
    eq(runIndex.workspaceId, ws),
    q.from ? gte(runIndex.createdAt, dayStart(q.from)) : undefined,
    q.to ? lt(runIndex.createdAt, nextDay(q.to)) : undefined,
  );
  const done = sql`${runIndex.outcome} is not null and ${runIndex.durationMs} is not null`;
  const order = q.by === "day" || q.by === "week" ? sql`1 asc` : sql`2 desc, 1 asc`;
  const rows = resultRows<{
    key: string | null;
    runs: number;
    finished: number;
    failed: number;
    p50: number | null;
    p90: number | null;
    tokens: string | null;
    cost: number | null;
  }>(
    await db.execute(sql`
      select ${key} as key, count(*)::int as runs,
        count(${runIndex.outcome})::int as finished,
        count(*) filter (where ${runIndex.outcome} = 'failed')::int as failed,
        percentile_cont(0.5) within group (order by ${runIndex.durationMs}) filter (where ${done}) as p50,
        percentile_cont(0.9) within group (order by ${runIndex.durationMs}) filter (where ${done}) as p90,
        sum(${runIndex.tokens})::text as tokens,
        sum(${runIndex.costUsd}) as cost
      from ${runIndex} where ${where}
      group by 1 order by ${order} limit ${MAX_GROUPS}`),
  );
  return rows.map((r) => ({
    key: r.key,
    runs: Number(r.runs),
    finished: Number(r.finished),
    failed: Number(r.failed),
    failure_rate: Number(r.finished) ? Number(r.failed) / Number(r.finished) : null,
    p50_ms: r.p50 === null ? null : Math.round(Number(r.p50)),
    p90_ms: r.p90 === null ? null : Math.round(Number(r.p90)),
    tokens: r.tokens === null ? null : Number(r.tokens),
    cost_usd: r.cost === null ? null : Number(r.cost),
  }));
}

/**
 * Rollups of a workspace's tool calls by tool ([TOOL6], `tool_call_index`), by when each call
 * started: calls and the runs that made them, calls failed of those that ended and the
 * failure rate, the median and 90th percentile of the ended calls' times.
 */
async function toolRollup(db: Db, ws: string, q: { from?: string; to?: string }): Promise<RollupRow[]> {
  const t = toolCallIndex;
  const where = and(
    eq(t.workspaceId, ws),
    q.from ? gte(t.startedAt, dayStart(q.from)) : undefined,
    q.to ? lt(t.startedAt, nextDay(q.to)) : undefined,
  );
  const rows = resultRows<{
    key: string | null;
    calls: number;
    runs: number;
    finished: number;
    failed: number;
    p50: number | null;
    p90: number | null;
  }>(
    await db.execute(sql`
      select ${t.tool} as key, count(*)::int as calls, count(distinct ${t.runId})::int as runs,
        count(${t.outcome})::int as finished,
        count(*) filter (where ${t.outcome} = 'failed')::int as failed,
        percentile_cont(0.5) within group (order by ${t.durationMs}) filter (where ${t.outcome} is not null) as p50,
        percentile_cont(0.9) within group (order by ${t.durationMs}) filter (where ${t.outcome} is not null) as p90
      from ${t} where ${where}
      group by 1 order by 2 desc, 1 asc limit ${MAX_GROUPS}`),
  );
  return rows.map((r) => ({
    key: r.key,
    runs: Number(r.runs),
    calls: Number(r.calls),
    finished: Number(r.finished),
    failed: Number(r.failed),
    failure_rate: Number(r.finished) ? Number(r.failed) / Number(r.finished) : null,
    p50_ms: r.p50 === null ? null : Math.round(Number(r.p50)),
    p90_ms: r.p90 === null ? null : Math.round(Number(r.p90)),
    tokens: null,
    cost_usd: null,
  }));
}
