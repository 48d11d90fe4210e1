import { bash, say, startMessagesServer, todo, toolResultsSinceUser } from "../test/support/messages-server";
import { test, expect } from "./support/fixtures";
import { scriptedClaude, startRealRunner } from "./support/real-runner";
import { RunPanelView } from "./support/run-panel";
import { RunsPage } from "./support/review";
import { startFromRoom } from "./support/start-run";
import { TestRun } from "./support/runs";

/**
 * [TOOL6] A run started in the room that a real Runner hands to the REAL Claude Code CLI
 * (only the model is scripted): its tool calls on the panel, on the run page under the plan
 * step each ran in (a failed one marked), and a search by a command finds exactly that run.
 */
test("[TOOL6] a runner's Claude Code: its calls on the panel and under their steps on the run page; a search by its command finds exactly its run", async ({
  page,
  request,
  admin,
  workspace,
  harness,
  loginAs,
  scratch,
}) => {
  test.setTimeout(180_000);
  const messages = await startMessagesServer(({ messages: m }) => {
    switch (toolResultsSinceUser(m).length) {
      case 0:
        return {
          blocks: [
            todo([
              ["Write the greeting", "in_progress"],
              ["Check it", "pending"],
            ]),
          ],
        };
      case 1:
        return { blocks: [bash("echo hello > greeting.txt")] };
      case 2:
        return {
          blocks: [
            todo([
              ["Write the greeting", "completed"],
              ["Check it", "in_progress"],
            ]),
          ],
        };
      case 3:
        return { blocks: [bash("cat bonjour.txt")] };
      case 4:
        return {
          blocks: [
            todo([
              ["Write the greeting", "completed"],
              ["Check it", "completed"],
            ]),
          ],
        };
      default:
        return { blocks: [say("Wrote it; it says hello, not bonjour.")] };
    }
  });
  scratch.closes(messages);
  await startRealRunner(scratch, {
    request,
    adminToken: admin.token,
    workspace,
    name: "e2e claude runner",
    adapters: [scriptedClaude(messages)],
  });

  await loginAs(page);
  const started = await startFromRoom(page, { prompt: "Write a greeting", repository: "demo", agent: "claude" });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const runId = started.body.run_id!;
  const panel = new RunPanelView(page, runId);
  await expect(panel.root).toHaveAttribute("data-run-state", "finished", { timeout: 120_000 });
  // The panel: TodoWrite, the two commands and the plan updates — one failed.
  const calls = panel.root.getByTestId("tool-calls");
  await expect(calls).toHaveAttribute("data-count", "5");
  await expect(calls).toHaveAttribute("data-failed", "1");

  // The run page: each command under the step it ran in, the failing one marked with its exit code.
  await page.goto(`/w/${workspace.workspace_id}/runs/${runId}`);
  const write = page.locator('[data-testid="calls-step"][data-step-id="todo-0"]');
  await expect(write.locator('[data-call-id][data-outcome="ok"]').filter({ hasText: "echo hello" })).toHaveCount(1);
  const check = page.locator('[data-testid="calls-step"][data-step-id="todo-1"]');
  const failed = check.locator('[data-call-id][data-outcome="failed"]');
  await expect(failed).toHaveCount(1);
  await expect(failed).toContainText("cat bonjour.txt");
  await expect(failed).toContainText("exit 1");

  // Search: the command finds this run, not one whose goal only says it.
  const talker = new TestRun(harness, workspace);
  await talker.start({ goal: "Do not cat bonjour" });
  await talker.finish();
  const runs = await new RunsPage(page, workspace.workspace_id).open();
  expect(await runs.search('ran:"cat bonjour"')).toEqual([runId]);
  expect(await runs.search("failed:Bash")).toEqual([runId]);
  expect(await runs.search("bonjour")).toEqual([runId, talker.id].sort());
});
