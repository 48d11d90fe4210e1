import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { newId } from "../lib/core/protocol";
import { test, expect } from "./support/fixtures";
import { RunPanelView } from "./support/run-panel";
import { TestRun } from "./support/runs";

async function panelIssues(page: Page) {
  const results = await new AxeBuilder({ page }).include('[data-testid="budgets-panel"]').analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** The workspace harness's budget, set by the admin through the API. */
async function setHarnessBudget(
  request: APIRequestContext,
  adminToken: string,
  ws: { workspace_id: string; harness_id: string },
  limits: Record<string, number>,
) {
  const put = await request.put(`/api/v1/workspaces/${ws.workspace_id}/budgets/${ws.harness_id}`, {
    headers: { authorization: `Bearer ${adminToken}` },
    data: limits,
  });
  expect(put.status(), await put.text()).toBe(200);
}

test.describe("[BUD2] the room shows spend against the harness's budget, live", () => {
  test("[BUD2] [BUD3] a budget's spend moves live in the room: amber at the warning share, red and refusing new runs at the limit", async ({
    page,
    request,
    admin,
    workspace,
    harness,
    loginAs,
  }) => {
    await setHarnessBudget(request, admin.token, workspace, { tokens_per_day: 1000, warn_at: 0.5 });
    await loginAs(page);
    const chip = page.getByTestId(`budget-${workspace.harness_id}`);
    await expect(chip).toHaveAttribute("data-state", "ok");
    await expect(chip).toContainText("0 / 1,000 tokens per day");

    const actor = { kind: "harness", id: workspace.harness_id };
    let n = 0;
    const base = () => ({
      v: 1,
      workspace_id: workspace.workspace_id,
      actor,
      idempotency_key: `e2e-budget-${Date.now()}-${++n}`,
    });
    const runId = newId("run");
    await harness.post({
      ...base(),
      type: "run.started",
      id: newId("event"),
      space_id: workspace.space_id,
      run_id: runId,
      goal: "Spend some tokens",
    });
    const status = (input: number) => ({
      ...base(),
      type: "run.status",
      id: newId("event"),
      run_id: runId,
      phase: "working",
      verb_phrase: "Working",
      usage: { input_tokens: input, output_tokens: 0 },
    });
    await harness.post(status(600));
    await expect(chip).toHaveAttribute("data-state", "warning");
    await expect(chip).toContainText("600 / 1,000 tokens per day · nearing the limit");
    await harness.post(status(1000));
    await expect(chip).toHaveAttribute("data-state", "exhausted");
    await expect(chip).toContainText("1,000 / 1,000 tokens per day · exhausted");
  });
});

test.describe("[BUD3] [DRV1] a run the budget cannot pause is named in the room", () => {
  test("[BUD3] [DRV1] the budget running out pauses the run that obeys pause and shows a notice for the watch-only one, beside its goal", async ({
    page,
    request,
    admin,
    workspace,
    harness,
    loginAs,
  }) => {
    await setHarnessBudget(request, admin.token, workspace, { tokens_per_day: 1000 });
    const room = await loginAs(page);
    const obeys = new TestRun(harness, workspace);
    await obeys.start({ goal: "Obeys every command" });
    const mirrored = new TestRun(harness, workspace);
    await mirrored.start({ goal: "Mirrored from a terminal", goal_from: "harness", commands: [] });
    await expect(new RunPanelView(page, mirrored.id).root.getByTestId("run-commands-note")).toHaveText(
      "Watch-only: started from a terminal",
    );
    // The report that runs the budget out is stored (the harness is answered 201, never 5xx).
    await obeys.status({ verb_phrase: "Working", usage: { input_tokens: 1000, output_tokens: 0 } });
    const paused = new RunPanelView(page, obeys.id).root;
    await expect(paused).toHaveAttribute("data-pending", "pausing");
    const receipt = paused.locator("[data-receipt]");
    await expect(receipt.locator("span").first()).toHaveText("Chips");
    await expect(receipt).toContainText("paused the run");
    await expect(receipt.locator("q")).toHaveText(
      `budget exhausted: ${workspace.harness_id}'s tokens per day: 1000 of 1000`,
    );
    const notice = room.items.and(page.locator(`[data-notice-of="${mirrored.id}"]`));
    await expect(notice).toHaveCount(1);
    await expect(notice).toContainText(
      `Chips could not pause this run (budget exhausted: ${workspace.harness_id}'s tokens per day: 1000 of 1000): this run's harness does not take pause: it is watch-only`,
    );
    await expect(notice).toContainText("Mirrored from a terminal");
    await expect(page.locator(`[data-notice-of="${obeys.id}"]`)).toHaveCount(0);
  });
});

test.describe("[BUD2] an owner sets budgets on the workspace page", () => {
  test("[BUD2] an owner sets a harness's tokens per day and warning share; a refusal shows beside its field; the spend against it follows usage; axe light and dark", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await loginAs(page);
    await page.goto(`/w/${workspace.workspace_id}`);
    const row = page.locator(`[data-testid="budget-row"][data-subject="${workspace.harness_id}"]`);
    await expect(row).toHaveAttribute("data-state", "none");
    await expect(page.locator('[data-testid="budget-row"][data-subject="*"]')).toContainText("no budget");
    await row.getByTestId("budget-edit").click();
    const form = row.getByTestId("budget-form");
    // Tokens are whole: the server refuses 1.5 at /tokens_per_day, and the form says so there.
    await form.getByTestId("budget-tokens_per_day").fill("1.5");
    await form.getByTestId("budget-save").click();
    await expect(form.getByTestId("budget-tokens_per_day")).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByTestId("budget-field-error")).toHaveCount(1);
    await expect(row).toHaveAttribute("data-state", "none");
    expect(await panelIssues(page), "the budgets panel, light, with a refusal").toEqual([]);

    await form.getByTestId("budget-tokens_per_day").fill("1000");
    await form.getByTestId("budget-warn_at").fill("50");
    await form.getByTestId("budget-save").click();
    await expect(form).toHaveCount(0);
    await expect(row).toHaveAttribute("data-state", "ok");
    await expect(row.getByTestId("budget-limits")).toHaveText("1,000 tokens/day; warns at 50%");
    await expect(row.getByTestId("budget-spend")).toContainText("today 0 tokens");

    // The harness reports usage: the panel's spend follows without a reload.
    const run = new TestRun(harness, workspace);
    await run.start({ goal: "Spend some tokens" });
    await run.status({ verb_phrase: "Working", usage: { input_tokens: 500, output_tokens: 100 } });
    await expect(row).toHaveAttribute("data-state", "warning");
    await expect(row.getByTestId("budget-spend")).toContainText("today 600 tokens");
    await expect(row.getByTestId("budget-limits")).toContainText("nearing the limit");
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await panelIssues(page), "the budgets panel, dark, warning").toEqual([]);
  });
});
