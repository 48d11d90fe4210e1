import type { Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { test, expect } from "./support/fixtures";
import { RawRunner } from "./support/raw-runner";
import { RoomStateView } from "./support/room-state";

/** Axe's serious or critical findings on the task board, as it is drawn now. */
async function boardIssues(page: Page) {
  const results = await new AxeBuilder({ page }).include('[data-testid="task-board"]').analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Make a task from the board's form; it is on the board once the form closes. */
async function makeTask(page: Page, t: { title: string; scope: string; after?: string[]; autoStart?: boolean }) {
  await page.getByTestId("task-new").click();
  const form = page.getByTestId("task-form");
  await form.getByTestId("task-title-input").fill(t.title);
  await form.getByTestId("task-prompt-input").fill(`Do ${t.title}`);
  await form.getByTestId("task-scope-input").fill(t.scope);
  for (const a of t.after ?? [])
    await form
      .getByTestId("task-prereq")
      .and(page.locator(`[data-task-id="${a}"]`))
      .check();
  if (t.autoStart) await form.getByTestId("task-auto-start").check();
  await form.getByTestId("task-repository-input").fill("demo");
  await form.getByTestId("task-save").click();
  await expect(form).toHaveCount(0);
  const card = page.getByTestId("task").filter({ hasText: t.title });
  await expect(card).toHaveCount(1);
  return (await card.getAttribute("data-task-id"))!;
}

test.describe("[TSK1]-[TSK4] the room's task board, in two browsers", () => {
  test("[TSK1][TSK2][TSK3][TSK4] tasks show live in the other browser; a task waiting on its prerequisite cannot start; an overlapping start is confirmed and the run records the override", async ({
    page,
    browser,
    loginAs,
  }) => {
    const dana = await loginAs(page);
    const otherContext = await browser.newContext();
    const sam = await loginAs(otherContext);
    // Sam's browser is dark, Dana's light: the board is checked by axe in both.
    await sam.page.emulateMedia({ colorScheme: "dark" });
    await new RoomStateView(dana.page).open();
    await new RoomStateView(sam.page).open();

    // A made in Dana's browser shows in Sam's, live, ready; B (after A) waits.
    const a = await makeTask(dana.page, { title: "Build API", scope: "src/**" });
    const samA = sam.page.locator(`[data-testid="task"][data-task-id="${a}"]`);
    await expect(samA).toHaveAttribute("data-status", "ready");
    const b = await makeTask(sam.page, { title: "Write docs", scope: "docs/**", after: [a] });
    const danaB = dana.page.locator(`[data-testid="task"][data-task-id="${b}"]`);
    await expect(danaB).toHaveAttribute("data-status", "waiting");

    // B cannot start before A succeeds: the refusal names A beside B.
    await danaB.getByTestId("task-start").click();
    await expect(danaB.getByTestId("task-start-error")).toContainText("Build API must succeed first");

    // A starts (queued, no runner: running); C's scope overlaps A's, so its start asks first.
    await dana.page.locator(`[data-testid="task"][data-task-id="${a}"]`).getByTestId("task-start").click();
    await expect(samA).toHaveAttribute("data-status", "running");
    const c = await makeTask(dana.page, { title: "Tune API", scope: "src/api/**" });
    const danaC = dana.page.locator(`[data-testid="task"][data-task-id="${c}"]`);
    await danaC.getByTestId("task-start").click();
    const ask = danaC.getByTestId("task-overlap");
    await expect(ask).toContainText("Build API (src/**)");
    await expect(danaB.getByTestId("task-start-error")).toBeVisible();
    expect(await boardIssues(dana.page), "the board, light, with a refusal and a confirmation").toEqual([]);
    await ask.getByTestId("task-start-anyway").click();
    await expect(danaC).toHaveAttribute("data-status", "running");
    await expect(sam.page.locator(`[data-testid="task"][data-task-id="${c}"]`)).toHaveAttribute(
      "data-status",
      "running",
    );
    expect(await boardIssues(sam.page), "the board, dark").toEqual([]);

    // The run page shows what the start froze, the override with it.
    await danaC.getByTestId("task-run").click();
    const snap = dana.page.getByTestId("run-task-snapshot");
    await expect(snap).toHaveAttribute("data-task-id", c);
    await expect(snap.getByTestId("run-task-scope")).toHaveText("src/api/**");
    await expect(snap.getByTestId("run-task-prompt-version")).toHaveText("v1");
    await expect(snap.getByTestId("run-task-override")).toContainText(a);
    await otherContext.close();
  });

  test("[TSK4] a task set to start by itself waits for its prerequisite, and starts when the prerequisite's run succeeds", async ({
    page,
    request,
    admin,
    workspace,
    loginAs,
  }) => {
    const dana = await loginAs(page);
    await new RoomStateView(dana.page).open();
    // A runner with no agent behind it: it takes each start and says what the run did (§5).
    const runner = await RawRunner.create(request, admin.token, workspace);
    await runner.connect({ repositories: ["demo"] });
    try {
      const a = await makeTask(dana.page, { title: "Make schema", scope: "db/**" });
      const b = await makeTask(dana.page, { title: "Seed data", scope: "seed/**", after: [a], autoStart: true });
      const cardA = dana.page.locator(`[data-testid="task"][data-task-id="${a}"]`);
      const cardB = dana.page.locator(`[data-testid="task"][data-task-id="${b}"]`);
      await expect(cardB).toHaveAttribute("data-status", "waiting");

      await cardA.getByTestId("task-start").click();
      await expect.poll(() => runner.starts.map((s) => s.task_id)).toEqual([a]);
      const runA = runner.starts[0].run_id;
      await expect(cardA).toHaveAttribute("data-status", "running");
      await expect(cardB).toHaveAttribute("data-status", "waiting"); // not before A has succeeded

      await runner.post(runner.event(runA, "run.started", { goal: "Do Make schema", goal_from: "chips" }));
      await runner.post(runner.event(runA, "run.finished", { outcome: "succeeded", summary: "schema made" }));
      await expect(cardA).toHaveAttribute("data-status", "done");
      // Nobody pressed Start on B: Chips queued it, the runner got it, the board shows it running.
      await expect.poll(() => runner.starts.map((s) => s.task_id)).toEqual([a, b]);
      await expect(cardB).toHaveAttribute("data-status", "running");
    } finally {
      runner.close();
    }
  });
});
