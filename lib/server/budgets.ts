import type { Database } from "@/db/client";
import { putBudget } from "@/db/budget-sql";
import { toMicro } from "@/lib/core/projection/budget";
import type { BudgetBody } from "@/lib/core/protocol";

/** Set (or replace) the budget of a harness, a runner or the whole workspace ([BUD1]); money is kept in micro-dollars. */
export async function setBudget(
  database: Database,
  o: { workspaceId: string; subject: string; body: BudgetBody; setBy: string },
): Promise<void> {
  const b = o.body;
  const micro = (usd: number | null) => (usd === null ? null : toMicro(usd));
  await putBudget(database.run, {
    workspaceId: o.workspaceId,
    subject: o.subject,
    tokensPerDay: b.tokens_per_day,
    tokensPerMonth: b.tokens_per_month,
    microUsdPerDay: micro(b.cost_usd_per_day),
    microUsdPerMonth: micro(b.cost_usd_per_month),
    warnAt: b.warn_at,
    setBy: o.setBy,
    setAt: new Date().toISOString(),
  });
}
