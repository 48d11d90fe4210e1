import { jobProcesses } from "../lib/agents/runner/process";
import { outputsSinceUser, plan, say, shell, startModelServer } from "../test/support/model-server";
import { test, expect } from "./support/fixtures";
import { gate } from "./support/gate";
import { scriptedCodex, startRealRunner } from "./support/real-runner";
import { RunPanelView, TypingIndicatorView } from "./support/run-panel";
import { RunsPage } from "./support/review";
import { TestRun } from "./support/runs";

/**
 * The whole product with a REAL agent: a person starts a run from the room, a real Runner
 * drives the real Codex CLI (only the model is scripted, on 127.0.0.1), and the room shows
 * it — dots from todo_list, the typing indicator while a command runs, the agent's message,
 * the change-set and its diff — and the Pause/Resume buttons reach the process.
 */
test("[UI1] [UI2] [RN3] [TOOL6] a run started in the room runs the real Codex CLI: dots, typing indicator, message, change-set and diff, its tool calls under their steps; pause and resume reach the process", async ({
  page,
  request,
  admin,
  workspace,
  harness,
  loginAs,
  scratch,
}) => {
  test.setTimeout(180_000);
  const dotsSeen = gate();
  const model = await startModelServer(({ input }) => {
    const said = JSON.stringify(input.filter((i: any) => i.role === "user").slice(-1));
    if (said.includes("Continue the task"))
      return {
        items: [
          outputsSinceUser(input) === 0
            ? shell("printf 'after the pause\\n' >> hello.md")
            : say("Resumed and **done**."),
        ],
      };
    switch (outputsSinceUser(input)) {
      case 0:
        return {
          items: [
            plan([
              ["Write hello.md", "in_progress"],
              ["Wait for people", "pending"],
            ]),
          ],
        };
      case 1:
        return { items: [shell("printf '# Hello\\n' > hello.md")] };
      case 2:
        return {
          items: [
            plan([
              ["Write hello.md", "completed"],
              ["Wait for people", "in_progress"],
            ]),
          ],
        };
      default:
        return { items: [shell("sleep 60")], hold: dotsSeen.p }; // waits until the test has seen the dots
    }
  });
  scratch.closes(model);
  await startRealRunner(scratch, {
    request,
    adminToken: admin.token,
    workspace,
    name: "e2e codex runner",
    adapters: [scriptedCodex(model.url)],
  });

  await loginAs(page);
  await page.getByTestId("start-run-open").click();
  await page.getByTestId("start-run-prompt").fill("Write hello.md, then wait");
  // The form offers what the connected runner has.
  await expect(page.getByTestId("start-run-runners")).toHaveText("Connected: e2e codex runner (codex: demo)");
  await page.getByTestId("start-run-repository").fill("demo");
  const answer = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/runs");
  await page.getByTestId("start-run-submit").click();
  const runId = ((await (await answer).json()) as { run_id: string }).run_id;
  const panel = new RunPanelView(page, runId);

  await expect(panel.root).toHaveAttribute("data-run-state", "running");
  await expect
    .poll(() =>
      panel.dots.evaluateAll((els) =>
        els.map((e) => `${e.getAttribute("data-step-id")}:${e.getAttribute("data-state")}`),
      ),
    )
    .toEqual(["todo-0:done", "todo-1:active"]);
  dotsSeen.open();
  const typing = new TypingIndicatorView(page, runId);
  await expect(typing.verb).toHaveText("Running sleep 60…");
  await expect(typing.progress).toHaveAttribute("aria-valuenow", "50");

  // Pause: the process stops for real; resume continues the same thread.
  await panel.button("run-pause").click();
  await expect(panel.root).toHaveAttribute("data-run-state", "paused", { timeout: 30_000 });
  await expect(typing.root).toHaveCount(0);
  expect(jobProcesses(runId)).toEqual([]);
  await panel.button("run-resume").click();
  await expect(panel.root).toHaveAttribute("data-run-state", "finished", { timeout: 60_000 });
  await expect(page.locator("[data-seq]").filter({ hasText: "Resumed and done." })).toHaveCount(1);

  // The change-set, from the real worktree.
  const changeSet = panel.root.getByTestId("change-set");
  await expect(changeSet.getByTestId("change-set-file")).toHaveCount(1);
  await expect(changeSet.getByTestId("change-set-file")).toHaveAttribute("data-path", "hello.md");
  await changeSet.getByTestId("change-set-show-diff").click();
  const diff = changeSet.getByTestId("diff-file");
  await expect(diff).toHaveAttribute("data-path", "hello.md");
  await expect(diff).toContainText("after the pause");

  // [TOOL6] The agent's tool calls: on the panel, and on the run page under the step each ran in.
  await expect(panel.root.getByTestId("tool-calls")).not.toHaveAttribute("data-count", "0");
  await page.goto(`/w/${workspace.workspace_id}/runs/${runId}`);
  const written = page.locator('[data-testid="calls-step"][data-step-id="todo-0"]');
  await expect(written.locator('[data-call-id][data-outcome="ok"]')).toHaveCount(1);
  await expect(written).toContainText("printf '# Hello\\n' > hello.md");
  await expect(written.getByTestId("calls-step-tally")).toHaveAttribute("data-count", "1");
  const waited = page.locator('[data-testid="calls-step"][data-step-id="todo-1"]');
  await expect(waited).toContainText("sleep 60");
  await expect(waited).toContainText("after the pause");
  // Search by a command finds exactly the runs that ran it: not a run whose goal only says it.
  const talker = new TestRun(harness, workspace);
  await talker.start({ goal: "Do not sleep 60 seconds" });
  await talker.finish();
  const runs = await new RunsPage(page, workspace.workspace_id).open();
  expect(await runs.search('ran:"sleep 60"')).toEqual([runId]);
  expect(await runs.search("sleep 60")).toEqual([runId, talker.id].sort());
  expect(await runs.search('ran:"npm publish"')).toEqual([]);
});
