import crypto from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import fs from "node:fs";
import { test, expect } from "./support/fixtures";
import { RawRunner } from "./support/raw-runner";
import { RunPanelView } from "./support/run-panel";
import { startFromRoom } from "./support/start-run";

const optionValues = (page: import("@playwright/test").Page, testId: string) =>
  page
    .getByTestId(testId)
    .locator("option")
    .evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));

test.describe("the runner contract in the room (§5)", () => {
  test("[RN5] the start form offers the models and providers connected runners advertise for the agent, and its instructions, model and provider reach the start request", async ({
    page,
    request,
    admin,
    workspace,
    loginAs,
    scratch,
  }) => {
    await loginAs(page);
    const runner = scratch.closes(await RawRunner.create(request, admin.token, workspace));
    await runner.connect({
      adapters: [
        {
          agent: "codex",
          profiles: ["read-only", "workspace-write"],
          version: "test",
          models: ["gpt-a", "gpt-b"],
          providers: ["azure"],
        },
        { agent: "claude", profiles: ["workspace-write"], version: "test", models: ["sonnet"], providers: [] },
      ],
    });

    await page.getByTestId("start-run-open").click();
    await expect(page.getByTestId("start-run-runners")).toContainText("e2e runner");
    await expect.poll(() => optionValues(page, "start-run-model")).toEqual(["", "gpt-a", "gpt-b"]);
    await expect.poll(() => optionValues(page, "start-run-provider")).toEqual(["", "azure"]);
    // Claude Code: its own models, and no provider to pick — said, not offered.
    await page.getByTestId("start-run-agent").selectOption("claude");
    await expect.poll(() => optionValues(page, "start-run-model")).toEqual(["", "sonnet"]);
    await expect(page.getByTestId("start-run-provider")).toBeDisabled();
    await expect(page.getByTestId("start-run-form")).toContainText("Claude Code takes no provider");
    const axe = await new AxeBuilder({ page }).include('[data-testid="start-run-form"]').analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
    await page.getByTestId("start-run-agent").selectOption("codex");
    await page.getByRole("button", { name: "Cancel" }).click();

    const instructions = `Keep it short.\nNo new dependencies. ${crypto.randomUUID().slice(0, 8)}`;
    const started = await startFromRoom(page, {
      prompt: "Tidy the README",
      repository: "demo-repo",
      model: "gpt-b",
      provider: "azure",
      instructions,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.run_id!;
    expect(await runner.startOf(runId)).toMatchObject({ model: "gpt-b", provider: "azure", instructions });
    const panel = new RunPanelView(page, runId);
    await expect(panel.root.getByTestId("run-request")).toContainText("gpt-b");
    await expect(panel.root.getByTestId("run-request")).toContainText("azure");
    await expect(panel.root.getByTestId("run-request-instructions")).toHaveAttribute("title", instructions);
  });

  test("[RN3] a check's long output shows its size, and its open link downloads every byte through a signed URL made at the click", async ({
    page,
    request,
    admin,
    workspace,
    loginAs,
    scratch,
  }) => {
    await loginAs(page);
    const runner = scratch.closes(await RawRunner.create(request, admin.token, workspace));
    await runner.connect();
    const runId = await runner.takeFromRoom(page, "Run the long test");
    // 200 KB a browser must not re-encode: CRLF lines and a byte that is not UTF-8.
    const output = Buffer.concat([
      Buffer.from(Array.from({ length: 17100 }, (_, i) => `line ${String(i).padStart(5, "0")}\r\n`).join("")),
      Buffer.from([0xff, 0x0a]),
    ]);
    const ref = await runner.putObject(runId, output);
    const diff = await runner.putObject(runId, "");
    await runner.post(
      runner.event(runId, "run.started", { goal: "Run the long test", goal_from: "chips" }),
      runner.runnerEvent(runId, "log", "$ npm test (exit 0)", {
        command: "npm test",
        exit_code: 0,
        output: "line 00000…",
        truncated: true,
        output_ref: ref,
      }),
      runner.runnerEvent(runId, "change-set", "0 files changed", {
        base_sha: "0".repeat(40),
        head_sha: "1".repeat(40),
        branch: "chips/long",
        files: [],
        additions: 0,
        deletions: 0,
        diff,
        checks: [{ command: "npm test", exit_code: 0, passed: true, duration_ms: 2000, output: ref }],
        cleanup: { policy: "keep", worktree: "chips-long" },
      }),
      runner.event(runId, "run.finished", { outcome: "succeeded", summary: "ok" }),
    );
    const check = new RunPanelView(page, runId).root.locator('[data-testid="check"][data-command="npm test"]');
    await expect(check.getByTestId("output-size")).toHaveText("output: 200.4 KB (open)");
    await expect(check.getByTestId("output-size")).toHaveAttribute("data-bytes", String(output.length));
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      check.getByRole("link", { name: /^Open the whole output of npm test/ }).click(),
    ]);
    expect(fs.readFileSync((await download.path())!).equals(output)).toBe(true);
    // The bytes came from a signed URL; the link holds none: each click asks Chips for a new one.
    expect(download.url()).toMatch(
      new RegExp(`/objects/${workspace.workspace_id}/${runId}/${ref.sha256}\\?exp=\\d+&sig=`),
    );
    await expect(check.getByTestId("output-open")).toHaveAttribute(
      "href",
      `/api/v1/runs/${runId}/objects/${ref.sha256}?redirect=1`,
    );

    // The run page's runner log offers the agent command's whole output the same way.
    await page.goto(`/w/${workspace.workspace_id}/runs/${runId}`);
    const logged = page.getByTestId("log-runner").getByTestId("output-size");
    await expect(logged).toHaveText("output: 200.4 KB (open)");
    await expect(logged.getByTestId("output-open")).toHaveAttribute(
      "href",
      `/api/v1/runs/${runId}/objects/${ref.sha256}?redirect=1`,
    );
  });
});
