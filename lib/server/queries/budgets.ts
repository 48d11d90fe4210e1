import type { Database } from "@/db/client";
import { readBudgets } from "@/db/budget-sql";
import { budgetOf, NO_SPEND, sumSpend, WORKSPACE_SUBJECT } from "@/lib/core/projection/budget";
import type { BudgetsAnswer } from "@/lib/core/protocol";
import { harnessNames } from "./people";

/**
 * A workspace's budgets, each with its subject's name and its spend today and this month
 * ([BUD1]; the workspace's own budget counts every harness's spend).
 */
export async function budgetsNow(database: Database, ws: string): Promise<BudgetsAnswer["budgets"]> {
  const day = new Date().toISOString().slice(0, 10);
  const read = await readBudgets(database.run, ws, day, false);
  const names = await harnessNames(
    database.db,
    ws,
    read.budgets.map((b) => b.subject).filter((s) => s !== WORKSPACE_SUBJECT),
  );
  return read.budgets.map((b) =>
    b.subject === WORKSPACE_SUBJECT
      ? budgetOf(b, "workspace", sumSpend(read.spend.values()))
      : budgetOf(b, names.get(b.subject) ?? b.subject, read.spend.get(b.subject) ?? NO_SPEND),
  );
}
