import type { Hono } from "hono";
import { BudgetBody, canonicalId, isId, type BudgetsAnswer } from "@/lib/core/protocol";
import { WORKSPACE_SUBJECT } from "@/lib/core/projection/budget";
import { budgetsNow } from "@/lib/server/queries/budgets";
import { harnessIn } from "@/lib/server/queries/people";
import { setBudget } from "../budgets";
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
    return json({ budgets: await budgetsNow(svc.database, ws) } satisfies BudgetsAnswer);
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
    await setBudget(svc.database, { workspaceId: ws, subject, body: input.data, setBy: c.get("cred").subjectId });
    return json({ subject, ...input.data });
  });
}
