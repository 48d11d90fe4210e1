import type { Run } from "./client";
import { rowCodec } from "./row-codec";
import { budgets, runs } from "./schema";
import type { MicroSpend } from "../lib/core/projection/budget";

/**
 * Budgets' statements (docs/ROOM-STATE.md [BUD1]–[BUD3]): the writer reads the
 * workspace's budgets and spend with a batch that reports usage or starts a run, and adds
 * each report's usage in the statement that stores it ({@link USAGE_CTE}).
 */

const budgetRows = rowCodec(budgets);
const runRows = rowCodec(runs);

export type BudgetRow = typeof budgets.$inferSelect;
type RunRow = typeof runs.$inferSelect;

const num = (v: unknown) => Number(v); // int8 and numeric are strings on postgres-js

const list = (select: string) => `(select coalesce(json_agg(x), '[]') from (${select}) x)`;

// $1 workspace, $2 the UTC day (YYYY-MM-DD), $3 whether to read the running runs too.
// Spend is summed per harness over the day's month; running runs are read only where a
// budget exists (they are what a budget that runs out pauses, [BUD3]), with the seq heads
// of their rooms: a pause (or its notice) goes to the run's room, whichever room reported.
const READ = `select (select seq_head from workspaces where id = $1) as head,
  ${list(`select ${budgetRows.jsonColumns} from budgets where workspace_id = $1`)} as budgets,
  ${list(`select harness_id, sum(case when day = $2::date then tokens else 0 end) as tokens_day, sum(tokens) as tokens_month,
      sum(case when day = $2::date then micro_usd else 0 end) as micro_day, sum(micro_usd) as micro_month
    from usage_days where workspace_id = $1 and day >= date_trunc('month', $2::date)::date and day <= $2::date group by harness_id`)} as spend,
  ${list(`select ${runRows.jsonColumns} from runs where workspace_id = $1 and state = 'running' and $3::boolean and exists (select from budgets where workspace_id = $1)`)} as running,
  ${list(`select id, seq_head from spaces where workspace_id = $1 and $3::boolean and exists (select from budgets where workspace_id = $1)
      and id in (select space_id from runs where workspace_id = $1 and state = 'running')`)} as running_spaces`;

export interface BudgetRead {
  head: number | null;
  budgets: BudgetRow[];
  /** Harness id → its spend this day and month. */
  spend: Map<string, MicroSpend>;
  running: RunRow[];
  /** Space id → seq head, of the rooms of the running runs. */
  runningSpaces: Map<string, number>;
}

export async function readBudgets(
  run: Run,
  workspaceId: string,
  day: string,
  withRunning: boolean,
): Promise<BudgetRead> {
  const [row] = await run<Record<string, unknown>>(READ, [workspaceId, day, withRunning]);
  const rows = (k: string) => row[k] as Record<string, unknown>[];
  return {
    head: row.head === null ? null : num(row.head),
    budgets: rows("budgets").map(budgetRows.decode),
    spend: new Map(
      rows("spend").map((r) => [
        r.harness_id as string,
        {
          tokensDay: num(r.tokens_day),
          tokensMonth: num(r.tokens_month),
          microDay: num(r.micro_day),
          microMonth: num(r.micro_month),
        },
      ]),
    ),
    running: rows("running").map(runRows.decode),
    runningSpaces: new Map(rows("running_spaces").map((r) => [r.id as string, num(r.seq_head)])),
  };
}

/**
 * The part of the writer's statement that adds usage ([BUD1]): per harness and UTC day,
 * `tokens = tokens + delta` in the database, under the same head guard as the events, so
 * concurrent reports (several agents of one harness, several nodes) never lose an update.
 * Parameters: harness ids, days, token deltas, micro-dollar deltas (one row per harness and day).
 */
export const USAGE_CTE = (h: string, d: string, t: string, m: string) => `usage_rows as (
    insert into usage_days (workspace_id, harness_id, day, tokens, micro_usd)
    select $1, u.h, u.d::date, u.t, u.m from unnest(${h}::text[], ${d}::text[], ${t}::bigint[], ${m}::bigint[]) as u(h, d, t, m)
    where exists (select from head)
    on conflict (workspace_id, harness_id, day) do update set tokens = usage_days.tokens + excluded.tokens, micro_usd = usage_days.micro_usd + excluded.micro_usd
  )`;

/** An owner sets (or replaces) a budget's limits. */
export async function putBudget(run: Run, b: BudgetRow): Promise<void> {
  await run(
    `${budgetRows.insertFrom("$1")} on conflict (workspace_id, subject) do update set tokens_per_day = excluded.tokens_per_day,
    tokens_per_month = excluded.tokens_per_month, micro_usd_per_day = excluded.micro_usd_per_day, micro_usd_per_month = excluded.micro_usd_per_month,
    warn_at = excluded.warn_at, set_by = excluded.set_by, set_at = excluded.set_at`,
    [budgetRows.encode([b])],
  );
}
