import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chipsHome, connectionDir } from "../lib/agents/connect/home";
import {
  lastUserText,
  say,
  startMessagesServer,
  toolResultsSinceUser,
  bash,
  type Block,
  type MessagesServer,
} from "../test/support/messages-server";
import { startClaudeTty, typePrompt } from "../test/support/claude-tty";
import type { Tty } from "../test/support/tty";
import { test, expect } from "./support/fixtures";
import { baseURL } from "./support/api";
import { gate } from "./support/gate";
import { RunPanelView, TypingIndicatorView } from "./support/run-panel";
import { RunsPage } from "./support/review";
import { runOf } from "./support/runs";

/**
 * A person's own Claude Code (the REAL CLI 2.1.141, interactive, in a pseudo-terminal;
 * only the model is scripted) after `chips connect claude`: what they type shows up in
 * the room, and the room's buttons reach the session through its hooks.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
let tmp = "";
let model: MessagesServer | null = null;
let tty: Tty | null = null;
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus && tty) {
    // What the person would have seen, and what the drainer said: the first things to read.
    await testInfo.attach("terminal", { body: tty.screen(), contentType: "text/plain" });
    console.log(
      `--- terminal ---\n${tty.screen()}\n--- model requests: ${model?.requests.length} ---\n${JSON.stringify(model?.requests.map((r) => r.messages.slice(-1))).slice(-3000)}`,
    );
    const logs = fs
      .readdirSync(path.join(tmp, "chips-home", "claude"))
      .map((d) => path.join(tmp, "chips-home", "claude", d, "drainer.log"));
    for (const f of logs.filter((l) => fs.existsSync(l)))
      await testInfo.attach("drainer.log", { path: f, contentType: "text/plain" });
    await testInfo.attach("model requests", {
      body: JSON.stringify(
        model?.requests.map((r) => r.messages.slice(-2)),
        null,
        1,
      ),
      contentType: "application/json",
    });
  }
  await tty?.close();
  const pidFile =
    tmp &&
    fs
      .readdirSync(path.join(tmp, "chips-home", "claude"))
      .map((d) => path.join(tmp, "chips-home", "claude", d, "drainer.pid"))
      .find((f) => fs.existsSync(f));
  if (pidFile) {
    try {
      process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGTERM");
    } catch {
      // gone
    }
  }
  await model?.close();
  // Claude Code may still be writing its last hook (SessionEnd) as it goes.
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  tty = model = null;
  tmp = "";
});

/** How long the real agent may take for a step on a busy 2-core machine. */
const AGENT = 60_000;

const tool = (name: string, input: Record<string, unknown>): Block => ({
  type: "tool_use",
  id: `toolu_${name}_${Math.random().toString(36).slice(2, 10)}`,
  name,
  input,
});

test("[UI1] [UI2] [UI3] [UI5] [TOOL6] Claude Code in a terminal after chips connect: prompt, dots, typing, answer, end, its tool calls under their steps; Pause holds the next tool call until Resume; Steer reaches the model; Cancel ends the turn", async ({
  page,
  workspace,
  harness,
  loginAs,
}) => {
  test.setTimeout(400_000);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-e2e-claude-"));
  const project = path.join(tmp, "project");
  fs.mkdirSync(path.join(project, ".claude"), { recursive: true });
  const settings = path.join(project, ".claude", "settings.local.json");
  // The person's own settings (Bash allowed, a hook of their own): connect must keep them.
  const original =
    '{\n  "permissions": { "allow": ["Bash"] },\n  "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] }\n}\n';
  fs.writeFileSync(settings, original);

  const g = { seen: gate(), pause: gate(), steer: gate(), cancel: gate() };
  model = await startMessagesServer(({ messages, body }) => {
    if (!body.tools?.some((t: { name?: string }) => t.name === "Bash")) return { blocks: [say("ok")] }; // a side request (a title…), not the turn
    const prompt = lastUserText(messages) ?? "";
    const n = toolResultsSinceUser(messages).length;
    if (prompt === "Count the files") {
      const steps: Array<() => Block> = [
        () => tool("TaskCreate", { subject: "List the files", description: "ls", activeForm: "Listing the files" }),
        () => tool("TaskCreate", { subject: "Count them", description: "wc", activeForm: "Counting them" }),
        () => tool("TaskUpdate", { taskId: "1", status: "in_progress" }),
        () => bash("sleep 1; ls > files.txt"),
        () => tool("TaskUpdate", { taskId: "1", status: "completed" }),
        () => tool("TaskUpdate", { taskId: "2", status: "in_progress" }),
        () => tool("TaskUpdate", { taskId: "2", status: "completed" }),
      ];
      if (n < steps.length) return { blocks: [steps[n]()], hold: n === 4 ? g.seen.p : undefined };
      return { blocks: [say("There are **2** files.")] };
    }
    if (prompt === "Pause, then go on") {
      if (n === 0) return { blocks: [bash("echo held > held.txt")], hold: g.pause.p };
      if (n === 1) return { blocks: [bash("echo after > after.txt")], hold: g.steer.p };
      return {
        blocks: [say(JSON.stringify(messages).includes("Use bananas") ? "Following the guidance: bananas." : "Done.")],
      };
    }
    if (prompt === "Start something long") {
      if (n === 0) return { blocks: [bash("echo never > never.txt")], hold: g.cancel.p };
      return { blocks: [say("Stopped.")] };
    }
    return { blocks: [say("?")] };
  });

  const env = {
    ...process.env,
    CHIPS_HOME: path.join(tmp, "chips-home"),
    CHIPS_URL: baseURL(),
    CHIPS_TOKEN: workspace.token,
  };
  const connected = spawnSync(process.execPath, [path.join(ROOT, "bin/chips.mjs"), "connect", "claude"], {
    cwd: project,
    env,
    encoding: "utf8",
  });
  expect(connected.status, connected.stderr).toBe(0);
  expect(connected.stdout).toContain("now shows up in room");
  tty = await startClaudeTty({
    project,
    configDir: path.join(tmp, "claude-config"),
    home: path.join(tmp, "home"),
    modelUrl: model.url,
  });
  await loginAs(page);

  // 1. A typed prompt: the person's message, dots from its tasks, the typing indicator, the answer, the end.
  typePrompt(tty, "Count the files");
  const run1 = await runOf(harness, "Count the files");
  const panel1 = new RunPanelView(page, run1);
  await expect(page.locator(`[data-goal-of="${run1}"]`)).toContainText("Count the files");
  await expect(panel1.root).toHaveAttribute("data-run-state", "running");
  await expect.poll(() => panel1.dotStates(), { timeout: AGENT }).toEqual(["active", "pending"]);
  const typing1 = new TypingIndicatorView(page, run1);
  await expect(typing1.verb).toHaveText("Listing the files…", { timeout: AGENT }); // the todo's activeForm while `ls` runs
  g.seen.open();
  await expect(page.locator("[data-seq]").filter({ hasText: "There are 2 files." })).toHaveCount(1, { timeout: AGENT });
  await expect(panel1.root).toHaveAttribute("data-run-state", "finished", { timeout: AGENT });
  await expect.poll(() => panel1.dotStates()).toEqual(["done", "done"]);
  await tty.waitFor(/There are 2 files/, "the answer in the terminal");

  // 2. Pause holds the next tool call until Resume; a Steer reaches the model's next request.
  typePrompt(tty, "Pause, then go on");
  const run2 = await runOf(harness, "Pause, then go on");
  const panel2 = new RunPanelView(page, run2);
  await panel2.button("run-pause").click();
  await expect(panel2.root.locator('[data-receipt="delivered"]')).toHaveCount(1);
  g.pause.open(); // the model now asks for `echo held`: the hook holds it
  await expect(panel2.root).toHaveAttribute("data-run-state", "paused", { timeout: AGENT });
  expect(fs.existsSync(path.join(project, "held.txt"))).toBe(false);
  await panel2.button("run-resume").click();
  await expect(panel2.root).toHaveAttribute("data-run-state", "running", { timeout: AGENT });
  await expect.poll(() => fs.existsSync(path.join(project, "held.txt")), { timeout: AGENT }).toBe(true);
  await panel2.button("run-steer").click();
  await panel2.root.getByTestId("run-steer-text").fill("Use bananas");
  await panel2.root.getByTestId("run-steer-send").click();
  // Handed over at the next tool call: the end of `echo held` (PostToolUse) or the next one (PreToolUse).
  g.steer.open();
  await expect(panel2.root.locator('[data-receipt="applied"]', { hasText: "steered" })).toBeVisible({ timeout: AGENT });
  await expect(page.locator("[data-seq]").filter({ hasText: "Following the guidance: bananas." })).toHaveCount(1, {
    timeout: AGENT,
  });
  const guided = model.requests.find((r) => JSON.stringify(r.messages).includes("Use bananas"));
  expect(guided, "a model request carries the guidance").toBeTruthy();
  await expect(panel2.root).toHaveAttribute("data-run-state", "finished", { timeout: AGENT });

  // 3. Cancel ends the turn: the held call is never run.
  typePrompt(tty, "Start something long");
  const run3 = await runOf(harness, "Start something long");
  const panel3 = new RunPanelView(page, run3);
  await panel3.button("run-cancel").click();
  await panel3.root.getByTestId("run-cancel-confirm").click();
  await expect(panel3.root.locator('[data-receipt="delivered"]')).toHaveCount(1);
  g.cancel.open();
  await expect(panel3.root.getByTestId("run-state")).toHaveText("cancelled", { timeout: AGENT });
  await tty.waitFor(/Stopped\./, "the turn's end in the terminal");
  expect(fs.existsSync(path.join(project, "never.txt"))).toBe(false);

  // Nothing twice, and the person's settings back byte for byte.
  const all = await harness.events();
  expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
  const root = connectionDir(chipsHome(env), "claude", settings);
  expect(fs.readFileSync(path.join(root, "token"), "utf8").trim()).toBe(workspace.token);
  const gone = spawnSync(process.execPath, [path.join(ROOT, "bin/chips.mjs"), "disconnect", "claude"], {
    cwd: project,
    env,
    encoding: "utf8",
  });
  expect(gone.status, gone.stderr).toBe(0);
  expect(fs.readFileSync(settings, "utf8")).toBe(original);

  // [TOOL6] The first turn's tool calls, from the hooks: on the run page, the `ls` under the task it ran in.
  await page.goto(`/w/${workspace.workspace_id}/runs/${run1}`);
  const listing = page.locator('[data-testid="calls-step"][data-step-id="todo-0"]');
  await expect(listing).toContainText("sleep 1; ls > files.txt");
  await expect(listing.locator('[data-call-id][data-outcome="ok"]').filter({ hasText: "Bash" })).toHaveCount(1);
  await expect(page.locator('[data-call-id][data-outcome="failed"]')).toHaveCount(0);
  // Search by a command finds exactly the runs that ran it (run 3's `echo never` is not `echo held`).
  const runs = await new RunsPage(page, workspace.workspace_id).open();
  expect(await runs.search('ran:"sleep 1"')).toEqual([run1]);
  expect(await runs.search('ran:"echo held"')).toEqual([run2]);
});
