import { test, expect } from "./support/fixtures";
import { RawRunner } from "./support/raw-runner";
import { RunPanelView } from "./support/run-panel";
import { startFromRoom } from "./support/start-run";

/**
 * A runner run's panel besides its change-set (runner-ui.spec.ts): the start form's field
 * error and the wait for a runner, a cancel while queued; the runner's log, checkpoint and
 * failure on the panel.
 */
test.describe("runner runs in the room (§5): the panel", () => {
  test("[RUN1] [UI5] [RUN3] a queued run's field error shows beside its field; with no runner it waits, offers only Cancel, and a cancel ends it at once", async ({
    page,
    loginAs,
  }) => {
    await loginAs(page);
    const bad = await startFromRoom(page, { prompt: "Use a secret", repository: "demo-repo", secrets: "not-a-name" });
    expect(bad.status).toBe(422);
    // No runner of this workspace is connected: the form says so before the run waits.
    await expect(page.getByTestId("start-run-runners")).toHaveText(/No runner is connected now/);
    // Each agent's profiles say what that agent's sandbox really enforces.
    await expect(page.getByTestId("start-run-profile-text").first()).toContainText("Codex's own sandbox");
    await page.getByTestId("start-run-agent").selectOption("claude");
    await expect(page.getByTestId("start-run-profile-text").first()).toContainText(
      "no network except the model endpoint",
    );
    await page.getByTestId("start-run-agent").selectOption("codex");
    const err = page.locator('[data-testid="start-run-error"][data-field="secrets"]');
    await expect(err).toBeVisible();
    await expect(page.getByTestId("start-run-secrets")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByTestId("start-run-secrets")).toBeFocused();
    await page.getByTestId("start-run-secrets").fill("NPM_TOKEN");
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/runs");
    await page.getByTestId("start-run-submit").click();
    const ok = await answer;
    expect(ok.status(), await ok.text()).toBe(201);
    const runId = ((await ok.json()) as { run_id: string }).run_id;
    const panel = new RunPanelView(page, runId);
    await expect(panel.root.getByTestId("run-waiting")).toBeVisible();
    await expect(panel.root.getByTestId("run-request")).toContainText("NPM_TOKEN");
    // [RUN3] nobody holds it yet: a steer would be refused, so the panel offers only what will happen.
    await expect(panel.button("run-steer")).toHaveCount(0);
    await expect(panel.button("run-pause")).toHaveCount(0);
    await expect(panel.root.getByTestId("run-commands-note")).toHaveText("Steer once a runner takes it");
    await panel.button("run-cancel").click();
    await panel.root.getByTestId("run-cancel-confirm").click();
    await expect(panel.root).toHaveAttribute("data-run-state", "finished");
    await expect(panel.root.getByTestId("run-state")).toHaveText("cancelled");
    await expect(panel.root.getByTestId("run-waiting")).toHaveCount(0);
  });

  test("[RN2] a runner's log, checkpoint and failure show on the panel, never as timeline messages", async ({
    page,
    request,
    admin,
    workspace,
    loginAs,
  }) => {
    const room = await loginAs(page);
    const runner = await RawRunner.create(request, admin.token, workspace);
    await runner.connect();
    const { body } = await startFromRoom(page, {
      prompt: "Break something",
      repository: "demo-repo",
      profile: "read-only",
    });
    const runId = body.run_id!;
    const panel = new RunPanelView(page, runId);
    await runner.startOf(runId);
    await expect(panel.root.getByTestId("run-request")).toContainText("read-only");
    // [RUN3] a runner holds it now ("starting"): Steer is offered, and the note is gone.
    await expect(panel.root.getByTestId("run-assigned")).toBeVisible();
    await expect(panel.button("run-steer")).toBeVisible();
    await expect(panel.root.getByTestId("run-commands-note")).toHaveCount(0);
    await runner.post(runner.event(runId, "run.started", { goal: "Break something", goal_from: "chips" }));
    const before = await room.items.count();
    await runner.post(
      runner.runnerEvent(runId, "log", "npm install: added 312 packages"),
      runner.runnerEvent(runId, "checkpoint", "checkpoint", { sha: "a".repeat(40), reason: "after the agent's turn" }),
    );
    await expect(panel.root.getByTestId("run-last-log")).toHaveText("npm install: added 312 packages");
    await expect(panel.root.getByTestId("run-checkpoint")).toContainText("aaaaaaa");
    await runner.post(
      runner.runnerEvent(runId, "failed", "codex exited 1: <b>sandbox</b> denied"),
      runner.event(runId, "run.finished", { outcome: "failed" }),
    );
    await expect(panel.root.getByTestId("run-runner-error")).toContainText("codex exited 1: <b>sandbox</b> denied");
    await expect(panel.root.getByTestId("run-state")).toHaveText("failed");
    expect(await room.items.count()).toBe(before);
    await page.reload();
    await expect(panel.root.getByTestId("run-runner-error")).toContainText("sandbox");
    await expect(panel.root.getByTestId("run-request")).toContainText("read-only");
    runner.close();
  });
});
