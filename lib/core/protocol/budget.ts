import { z } from "zod";

/** What a budget limits: tokens (input + output) or cost, per UTC day or per calendar month (UTC). */
export const BudgetMetric = z.enum(["tokens", "cost_usd"]);
export const BudgetPeriod = z.enum(["day", "month"]);

/**
 * `PUT /api/v1/workspaces/:ws/budgets/:subject` — an owner sets the limits of one harness
 * or runner (`subject` is its id) or of the whole workspace (`subject` `*`). A limit left
 * out or null is no limit. `warn_at` is the share of a limit at which the room warns.
 */
export const BudgetBody = z
  .object({
    tokens_per_day: z.number().int().min(1).nullable().default(null),
    tokens_per_month: z.number().int().min(1).nullable().default(null),
    cost_usd_per_day: z.number().positive().max(1e9).nullable().default(null),
    cost_usd_per_month: z.number().positive().max(1e9).nullable().default(null),
    warn_at: z.number().gt(0).max(1).default(0.8),
  })
  .strict();
export type BudgetBody = z.infer<typeof BudgetBody>;

/** One limit reached or near: which, how much, how much is spent (the figures of `budget_exhausted`). */
export const BudgetLimit = z.object({
  subject: z.string(),
  metric: BudgetMetric,
  period: BudgetPeriod,
  limit: z.number(),
  spent: z.number(),
});
export type BudgetLimit = z.infer<typeof BudgetLimit>;

/** Spend of one subject in the current day and month (UTC). */
export const Spend = z.object({
  tokens_day: z.number().int(),
  tokens_month: z.number().int(),
  cost_usd_day: z.number(),
  cost_usd_month: z.number(),
});
export type Spend = z.infer<typeof Spend>;

/** A budget with its spend now ([BUD2]): `ok`, `warning` past `warn_at` of a limit, `exhausted` at a limit. */
export const Budget = BudgetBody.extend({
  workspace_id: z.string(),
  subject: z.string(),
  /** The harness's or runner's name; "workspace" for `*`. */
  name: z.string(),
  set_by: z.string(),
  set_at: z.string(),
  spent: Spend,
  state: z.enum(["ok", "warning", "exhausted"]),
  /** The limit nearest to being reached (the one reached, when exhausted); null for a budget without limits. */
  limit: BudgetLimit.nullable(),
});
export type Budget = z.infer<typeof Budget>;

/** `GET /api/v1/workspaces/:ws/budgets`: the workspace's budgets with their spend now. */
export const BudgetsAnswer = z.object({ budgets: z.array(Budget) });
export type BudgetsAnswer = z.infer<typeof BudgetsAnswer>;
