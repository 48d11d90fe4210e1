import { test, expect } from "./support/fixtures";
import { RunPanelView, TypingIndicatorView, occurrences } from "./support/run-panel";
import { Person, TestRun } from "./support/runs";

const unique = (what: string) => `${what} ${Math.random().toString(36).slice(2, 8)}`;
const plan = (n: number) => Array.from({ length: n }, (_, i) => ({ step_id: `s${i + 1}`, title: `Step ${i + 1}` }));

test.describe("[UI3] goal_from: where a run's goal is drawn", () => {
  test("[UI3] harness: the goal is that person's message in the timeline, and nowhere else", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    const room = await loginAs(page);
    const run = new TestRun(harness, workspace);
    const goal = unique("Fix the flaky checkout test");
    await run.start({ goal, goal_from: "harness", plan: plan(2) });
    const asked = page.locator(`[data-goal-of="${run.id}"]`);
    await expect(asked).toContainText(goal);
    await expect(new RunPanelView(page, run.id).root).toBeVisible();
    await expect(page.getByTestId("run-goal")).toHaveCount(0);
    expect(await occurrences(page, goal)).toBe(1);
    await room.waitLive();
  });

  test("[UI3] chips: the goal is already the room's own message; no element repeats it", async ({
    page,
    request,
    workspace,
    harness,
    loginAs,
  }) => {
    await loginAs(page);
    const goal = unique("Get PO #4471 confirmed with Northwind");
    const said = await new Person(request, workspace).message(goal);
    await expect(page.locator(`[data-seq="${said.seq}"]`)).toContainText(goal);
    const run = new TestRun(harness, workspace);
    await run.start({ goal, goal_from: "chips", plan: plan(1) });
    await expect(new RunPanelView(page, run.id).root).toBeVisible();
    await expect(page.locator("[data-goal-of]")).toHaveCount(0);
    await expect(page.getByTestId("run-goal")).toHaveCount(0);
    expect(await occurrences(page, goal)).toBe(1);
  });

  test("[UI3] omitted: the header and the run panel say the goal; no message does", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    const goal = unique("Nightly dependency audit");
    await run.start({ goal, plan: plan(1) });
    const headings = page.locator(`[data-testid="run-goal"][data-run-id="${run.id}"]`);
    await expect(headings).toHaveCount(2);
    await expect(page.getByRole("banner").getByTestId("run-goal")).toContainText(goal);
    await expect(new RunPanelView(page, run.id).goal).toHaveText(goal);
    await expect(page.locator("[data-goal-of]")).toHaveCount(0);
    expect(await occurrences(page, goal)).toBe(2);
    // Once the run is over the header lets it go; the panel keeps it.
    await run.finish();
    await expect(headings).toHaveCount(1);
  });
});

test.describe("[UI1] the run panel's dots", () => {
  test("[UI1] [UI6] a 5-step plan shows 5 hollow dots that fill in order; a step added mid-run appears at the end", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    await run.start({ goal: "Five steps", plan: plan(5), session_ref: "term://e2e/1" });
    const panel = new RunPanelView(page, run.id);
    await expect(panel.dots).toHaveCount(5);
    expect(await panel.dotStates()).toEqual(["pending", "pending", "pending", "pending", "pending"]);
    await expect(panel.root).toHaveAttribute("data-run-state", "running");
    await expect(panel.root.getByTestId("run-session-ref")).toHaveText("term://e2e/1");
    await expect(panel.dots.first()).toHaveAccessibleName("Step 1 — pending");

    for (let i = 1; i <= 5; i++) {
      await run.step(`s${i}`, "active");
      await expect(panel.dots.nth(i - 1)).toHaveAttribute("data-state", "active");
      await run.step(`s${i}`, "done");
      const added = i > 3 ? ["skipped"] : [];
      await expect
        .poll(() => panel.dotStates())
        .toEqual([...Array(i).fill("done"), ...Array(5 - i).fill("pending"), ...added]);
      if (i === 3) {
        await run.step("extra", "active", "Added mid-run");
        await expect(panel.dots).toHaveCount(6);
        await expect(panel.dots.last()).toHaveAttribute("data-step-id", "extra");
        await expect(panel.dots.last()).toHaveAccessibleName("Added mid-run — in progress");
        await run.step("extra", "skipped");
      }
    }
    expect(await panel.dotStates()).toEqual(["done", "done", "done", "done", "done", "skipped"]);
    // Pending, active, done, failed and skipped look different from each other.
    await run.finish("failed");
    await expect(panel.root).toHaveAttribute("data-run-state", "finished");
  });

  test("[UI1] the step title shows on hover and on keyboard focus", async ({ page, workspace, harness, loginAs }) => {
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    await run.start({
      goal: "Titles",
      plan: [
        { step_id: "a", title: "Read PO #4471" },
        { step_id: "b", title: "Email Dana" },
      ],
    });
    const panel = new RunPanelView(page, run.id);
    await panel.dots.first().hover();
    await expect(panel.root.getByText("Read PO #4471", { exact: true })).toBeVisible();
    await panel.dots.nth(1).focus();
    await expect(panel.root.getByText("Email Dana", { exact: true })).toBeVisible();
  });
});

test.describe("[UI2] the typing indicator", () => {
  test("[UI2] shows the exact verb_phrase, progress as aria-valuenow, a countdown that goes down; gone on run.finished", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await page.clock.install({ time: new Date() });
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    await run.start({ goal: "Typing", plan: plan(1) });
    const typing = new TypingIndicatorView(page, run.id);
    await run.status({ verb_phrase: "Reading PO #4471…", progress: 0.42, estimate_seconds: 90 });
    await expect(typing.verb).toHaveText("Reading PO #4471…");
    await expect(typing.progress).toHaveAttribute("aria-valuenow", "42");
    const first = await typing.etaSeconds();
    expect(first).toBeGreaterThan(80);
    expect(first).toBeLessThanOrEqual(90);
    await page.clock.runFor(10_000);
    await expect.poll(() => typing.etaSeconds()).toBeLessThanOrEqual(first - 9);
    expect(await typing.etaSeconds()).toBeGreaterThanOrEqual(first - 11);
    await expect(page.getByTestId("timeline").getByText("Reading PO #4471…")).toHaveCount(0); // never a timeline message
    await run.finish();
    await expect(typing.root).toHaveCount(0);
  });

  test("[UI2] disappears when the run pauses", async ({ page, request, workspace, harness, loginAs }) => {
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    await run.start({ goal: "Pausing", plan: plan(1) });
    const typing = new TypingIndicatorView(page, run.id);
    await run.status({ verb_phrase: "Working hard", progress: 0.1 });
    await expect(typing.root).toBeVisible();
    const cmd = await new Person(request, workspace).command(run.id, "pause");
    await expect(new RunPanelView(page, run.id).root).toHaveAttribute("data-pending", "pausing");
    await expect(typing.root).toBeVisible(); // still working until the harness applies it
    await run.ack(cmd.command_id, "applied");
    await expect(new RunPanelView(page, run.id).root).toHaveAttribute("data-run-state", "paused");
    await expect(typing.root).toHaveCount(0);
  });

  test("[UI2] disappears when no status came for the TTL (driven by the page's clock)", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await page.clock.install({ time: new Date() });
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    await run.start({ goal: "Going quiet", plan: plan(1) });
    const typing = new TypingIndicatorView(page, run.id);
    await run.status({ verb_phrase: "Thinking…", estimate_seconds: 600 });
    await expect(typing.root).toBeVisible();
    await page.clock.runFor(55_000);
    await expect(typing.root).toBeVisible();
    await page.clock.runFor(6_000);
    await expect(typing.root).toHaveCount(0);
  });
});

test.describe("[RUN2] the run panel offers only the commands the run's harness obeys", () => {
  test("[RUN2] a watch-only run (a Codex session started in a terminal) has no buttons and says why", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    await run.start({ goal: unique("Count to two"), goal_from: "harness", commands: [], plan: plan(2) });
    const panel = new RunPanelView(page, run.id);
    await expect(panel.root.getByTestId("run-commands-note")).toHaveText("Watch-only: started from a terminal");
    for (const id of ["run-steer", "run-pause", "run-resume", "run-cancel"])
      await expect(panel.root.getByTestId(id)).toHaveCount(0);
  });

  test("[RUN2] a run that declares nothing keeps every button and no note", async ({
    page,
    workspace,
    harness,
    loginAs,
  }) => {
    await loginAs(page);
    const run = new TestRun(harness, workspace);
    await run.start({ goal: unique("Nightly audit"), plan: plan(1) });
    const panel = new RunPanelView(page, run.id);
    for (const id of ["run-steer", "run-pause", "run-cancel"]) await expect(panel.root.getByTestId(id)).toBeVisible();
    await expect(panel.root.getByTestId("run-commands-note")).toHaveCount(0);
  });
});
