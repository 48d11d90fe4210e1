import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startCodexTty, sendToCodex } from "../test/support/codex-tty";
import { lastUserText, outputsSinceUser, plan, say, shell, startModelServer } from "../test/support/model-server";
import type { Tty } from "../test/support/tty";
import { test, expect } from "./support/fixtures";
import { baseURL, type Harness } from "./support/api";
import { RunsPage } from "./support/review";
import { TestRun } from "./support/runs";

/**
 * [TOOL6] A person's own Codex (the REAL CLI, interactive, in a pseudo-terminal; only the
 * model is scripted) watched by `chips connect codex`: the calls of its rollout show on the
 * run page under the step they ran in, and a search by the command finds exactly that run.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
let tmp = "";
let tty: Tty | null = null;
let watcher: ChildProcess | null = null;
let closeModel: (() => Promise<void>) | null = null;
test.afterEach(async () => {
  await tty?.close();
  watcher?.kill("SIGTERM");
  await closeModel?.();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  tty = watcher = closeModel = null;
  tmp = "";
});

/** The run the room has for a goal, once it has one (within `ms`). */
async function runOf(harness: Harness, goal: string, ms: number): Promise<string> {
  let id = "";
  await expect
    .poll(
      async () =>
        (id =
          ((await harness.events()).filter((e) => e.type === "run.started" && e.goal === goal).at(-1)
            ?.run_id as string) ?? ""),
      { timeout: ms },
    )
    .not.toBe("");
  return id;
}

test("[TOOL6] chips connect codex: a Codex session's tool calls on the run page under their steps; a search by its command finds exactly its run", async ({
  page,
  workspace,
  harness,
  loginAs,
}) => {
  test.setTimeout(240_000);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-e2e-codex-"));
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
  closeModel = () => model.close();
  const project = path.join(tmp, "project");
  const codexHome = path.join(tmp, "codex-home");
  fs.mkdirSync(project, { recursive: true });
  watcher = spawn(process.execPath, [path.join(ROOT, "bin/chips.mjs"), "connect", "codex"], {
    cwd: project,
    env: {
      ...process.env,
      CHIPS_HOME: path.join(tmp, "chips-home"),
      CHIPS_URL: baseURL(),
      CHIPS_TOKEN: workspace.token,
      CODEX_HOME: codexHome,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  watcher.stdout!.on("data", (d) => (out += d));
  watcher.stderr!.on("data", (d) => (out += d));
  await expect.poll(() => out, { timeout: 30_000 }).toMatch(/Mirroring the Codex sessions/);
  tty = await startCodexTty({ project, codexHome, tmp, modelUrl: model.url });
  const send = (text: string) => sendToCodex(tty!, text, (goal, ms) => runOf(harness, goal, ms));
  const finished = (runId: string) =>
    expect
      .poll(async () => (await harness.events()).some((e) => e.type === "run.finished" && e.run_id === runId), {
        timeout: 120_000,
      })
      .toBe(true);

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
