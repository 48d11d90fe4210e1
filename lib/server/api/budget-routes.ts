import type { Hono } from "hono";
import { BudgetBody, canonicalId, isId, type BudgetsAnswer } from "@/lib/protocol";
import { budgetOf, NO_SPEND, sumSpend, toMicro, WORKSPACE_SUBJECT } from "@/lib/projection/budget";
import { putBudget, readBudgets } from "@/db/budget-sql";
import { harnessIn, harnessNames } from "@/lib/queries/people";
import type { ChipsServices } from "../services";
import { workspaceScope } from "./access";
import { fail, json, parseBody, type ApiEnv } from "./http";

/**
 * Harness budgets (issue 14, docs/ROOM-STATE.md [BUD1]–[BUD3]): an owner sets the limits of a
 * harness, a runner or the whole workspace; anyone of the workspace reads them with their
 * spend now. The writer keeps the spend and enforces the limits.
 */
export function budgetRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.get("/api/v1/workspaces/:ws/budgets", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const day = new Date().toISOString().slice(0, 10);
    const read = await readBudgets(svc.database.run, ws, day, false);
    const ids = read.budgets.map((b) => b.subject).filter((s) => s !== WORKSPACE_SUBJECT);
    const names = await harnessNames(svc.db, ws, ids);
    const budgets = read.budgets.map((b) =>
      b.subject === WORKSPACE_SUBJECT
        ? budgetOf(b, "workspace", sumSpend(read.spend.values()))
        : budgetOf(b, names.get(b.subject) ?? b.subject, read.spend.get(b.subject) ?? NO_SPEND),
    );
    return json({ budgets } satisfies BudgetsAnswer);
  });

  app.put("/api/v1/workspaces/:ws/budgets/:subject", async (c) => {
    const ws = workspaceScope(c, undefined, "manage");
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, BudgetBody, "bad budget", 4096);
    if (input instanceof Response) return input;
    const raw = c.req.param("subject");
    let subject = WORKSPACE_SUBJECT;
    if (raw !== WORKSPACE_SUBJECT) {
      const id = isId("harness", raw) || isId("runner", raw) ? canonicalId(raw) : null;
      const h = id ? await harnessIn(svc.db, ws, id) : null;
      if (!h)
        return fail(
          "validation_failed",
          "the subject is a harness or runner of this workspace, or * for the whole workspace",
          "/path/subject",
        );
      subject = h.id;
    }
    const b = input.data;
    const micro = (usd: number | null) => (usd === null ? null : toMicro(usd));
    await putBudget(svc.database.run, {
      workspaceId: ws,
      subject,
      tokensPerDay: b.tokens_per_day,
      tokensPerMonth: b.tokens_per_month,
      microUsdPerDay: micro(b.cost_usd_per_day),
      microUsdPerMonth: micro(b.cost_usd_per_month),
      warnAt: b.warn_at,
      setBy: c.get("cred").subjectId,
      setAt: new Date().toISOString(),
    });
    return json({ subject, ...b });
  });
}
