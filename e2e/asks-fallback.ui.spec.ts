import { test, expect } from "./support/fixtures";
import { newId } from "../lib/core/protocol";
import { AskCardView, askOn, startRun } from "./support/asks";

// [ASK8] What an unanswered ask comes to, in the browser: a connect dialog's ask is left to the
// agent's terminal and never says deny; an ask that says nothing reads deny, as it always did.

test("[ASK8] the card, the inbox and the run page say what happens if nobody answers: the terminal's prompt, or deny", async ({
  page,
  workspace,
  harness,
  loginAs,
}) => {
  await loginAs(page);
  const runId = await startRun(harness, "Build it at the terminal");
  const terminal = await askOn(harness, runId, {
    summary: "make",
    command: "make",
    expires_in_seconds: 3600,
    if_unanswered: "ask_in_terminal",
    source: "claude-hook",
  });
  const old = await askOn(harness, runId, { summary: "make clean", command: "make clean", expires_in_seconds: 3600 });
  const left = new AskCardView(page, terminal.ask_id as string);
  const denied = new AskCardView(page, old.ask_id as string);
  await expect(left.root).toContainText(/Unanswered by .*: left to the prompt in the agent’s terminal\./);
  await expect(left.root).not.toContainText("deny");
  await expect(denied.root).toContainText(/Unanswered by .*: the agent’s safe default applies \(deny\)\./);

  await page.goto(`/w/${workspace.workspace_id}/inbox`);
  const row = new AskCardView(page, terminal.ask_id as string);
  await expect(row.root).toContainText("left to the prompt in the agent’s terminal");
  await expect(row.root).not.toContainText("deny");

  // Expired and closed by Chips: the outcome says what applied, no deny for the terminal's.
  const soon = await askOn(harness, runId, {
    summary: "make install",
    command: "make install",
    expires_in_seconds: 1,
    if_unanswered: "ask_in_terminal",
  });
  await page.goto(`/w/${workspace.workspace_id}/r/${workspace.space_id}`);
  const closed = new AskCardView(page, soon.ask_id as string);
  await closed.expectState("closed");
  await expect(closed.outcome).toHaveText("Closed: expired — left to the prompt in the agent’s terminal");

  // The run page's asks say it too.
  await page.goto(`/w/${workspace.workspace_id}/runs/${runId}`);
  const review = page.locator(`[data-testid="review-ask"][data-ask-id="${soon.ask_id as string}"]`);
  await expect(review.getByTestId("review-ask-outcome")).toContainText(
    /Expired: nobody answered in time at .* — left to the prompt in the agent’s terminal/,
  );
  await expect(review.getByTestId("review-ask-outcome")).not.toContainText("deny");
});

test("[ASK4] a connect hook's applied receipt says the answer reached Claude Code, not that the call was done", async ({
  page,
  harness,
  loginAs,
}) => {
  await loginAs(page);
  const runId = await startRun(harness, "Run it through Claude Code");
  const hook = await askOn(harness, runId, { summary: "make", command: "make", source: "claude-hook" });
  const sdk = await askOn(harness, runId, { summary: "make test", command: "make test" });
  for (const asked of [hook, sdk]) {
    const card = new AskCardView(page, asked.ask_id as string);
    await card.option("allow").click();
    await card.expectState("answered");
    await harness.post({
      v: 1,
      type: "run.answer_applied",
      id: newId("event"),
      workspace_id: harness.ws.workspace_id,
      run_id: runId,
      actor: { kind: "harness", id: harness.ws.harness_id },
      idempotency_key: newId("event"),
      ask_id: asked.ask_id,
      result: "applied",
    });
    await card.expectState("applied");
  }
  await expect(new AskCardView(page, hook.ask_id as string).outcome).toContainText("· the answer reached Claude Code");
  await expect(new AskCardView(page, sdk.ask_id as string).outcome).toContainText("· applied by the agent");
});
