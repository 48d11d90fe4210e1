import { sendToCodex } from "../test/support/codex-tty";
import { connectedCodex } from "../test/support/connected-codex";
import { lastUserText, outputsSinceUser, plan, say, shell, startModelServer } from "../test/support/model-server";
import { test, expect } from "./support/fixtures";
import { baseURL } from "./support/api";
import { RunsPage } from "./support/review";
import { TestRun, runFinished, runOf } from "./support/runs";

/**
 * [TOOL6] A person's own Codex (the REAL CLI, interactive, in a pseudo-terminal; only the
 * model is scripted) watched by `chips connect codex`: the calls of its rollout show on the
 * run page under the step they ran in, and a search by the command finds exactly that run.
 */
test("[TOOL6] chips connect codex: a Codex session's tool calls on the run page under their steps; a search by its command finds exactly its run", async ({
  page,
  workspace,
  harness,
  loginAs,
  scratch,
}) => {
  test.setTimeout(240_000);
  const model = await startModelServer(({ input }) => {
    const said = lastUserText(input) ?? "";
    if (/Generate a concise, single-line task title/.test(said)) return { items: [say("Count to two")] };
    if (said === "Just say hello") return { items: [say("Hello.")] };
    switch (outputsSinceUser(input)) {
      case 0:
        return {
          items: [
            plan([
              ["Count one", "in_progress"],
              ["Count two", "pending"],
            ]),
          ],
        };
      case 1:
        return { items: [shell("echo one >> count.txt")] };
      case 2:
        return {
          items: [
            plan([
              ["Count one", "completed"],
              ["Count two", "in_progress"],
            ]),
          ],
        };
      default:
        return { items: [say("Counted to **two**.")] };
    }
  });
  scratch.closes(model);
  const codex = scratch.closes(
    await connectedCodex({ url: baseURL(), token: workspace.token, tmp: scratch.path(), modelUrl: model.url }),
  );
  const send = (text: string) => sendToCodex(codex.tty, text, (goal, ms) => runOf(harness, goal, ms));
  const finished = (runId: string) => runFinished(harness, runId, 120_000);

  const counted = await send("Count to two, please");
  await finished(counted);
  const hello = await send("Just say hello");
  await finished(hello);
  // A run that only talks about the command: full text finds it, `ran:` does not.
  const talker = new TestRun(harness, workspace);
  await talker.start({ goal: "Should we echo one into a file?" });
  await talker.finish();

  // The run page: the command under the step it ran in (Codex's sandbox may refuse to start it: it ran, and failed).
  await loginAs(page);
  await page.goto(`/w/${workspace.workspace_id}/runs/${counted}`);
  const first = page.locator('[data-testid="calls-step"][data-step-id="todo-0"]');
  await expect(first).toContainText("echo one >> count.txt");
  await expect(first.locator("[data-call-id]").filter({ hasText: "exec_command" })).toHaveAttribute(
    "data-outcome",
    /^(ok|failed)$/,
  );
  await expect(page.locator("[data-call-id]").filter({ hasText: "update_plan" })).toHaveCount(2);
  await page.goto(`/w/${workspace.workspace_id}/runs/${hello}`);
  await expect(page.getByText("No tool calls on record.")).toBeVisible();

  const runs = await new RunsPage(page, workspace.workspace_id).open();
  expect(await runs.search('ran:"echo one"')).toEqual([counted]);
  expect(await runs.search("tool:exec_command")).toEqual([counted]);
  expect(await runs.search("echo one")).toEqual([counted, talker.id].sort());
});
