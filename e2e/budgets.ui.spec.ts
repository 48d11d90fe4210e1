import { newId } from "../lib/protocol";
import { test, expect } from "./support/fixtures";

test.describe("[BUD2] the room shows spend against the harness's budget, live", () => {
  test("[BUD2] [BUD3] a budget's spend moves live in the room: amber at the warning share, red and refusing new runs at the limit", async ({
    page,
    request,
    admin,
    workspace,
    harness,
    loginAs,
  }) => {
    const put = await request.put(`/api/v1/workspaces/${workspace.workspace_id}/budgets/${workspace.harness_id}`, {
      headers: { authorization: `Bearer ${admin.token}` },
      data: { tokens_per_day: 1000, warn_at: 0.5 },
    });
    expect(put.status(), await put.text()).toBe(200);
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
