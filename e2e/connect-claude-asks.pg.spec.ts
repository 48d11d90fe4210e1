import fs from "node:fs";
import path from "node:path";
import { connectClaude } from "../test/support/claude-connect";
import { claudePrint, finalOf } from "../test/support/claude-print";
import { startClaudeTty, typePrompt } from "../test/support/claude-tty";
import { bash } from "../test/support/messages-server";
import type { Tty } from "../test/support/tty";
import { test, expect } from "./support/fixtures";
import { baseURL } from "./support/api";
import { RunPanelView } from "./support/run-panel";
import { runOf } from "./support/runs";
import {
  AGENT,
  askTrail,
  clickAllow,
  clickDeny,
  expectApplied,
  expectWaiting,
  modelWasTold,
  permissionCard,
  stepsModel,
} from "./support/claude-asks";

/**
 * [CON3] [CON5] "Needs you" with a person's own Claude Code (the REAL CLI 2.1.141; only the
 * model is scripted) after `chips connect claude`: the agent asks to run a command, a person
 * sees the ask in the room in Chromium and clicks Allow or Deny. Interactive in a terminal
 * (its own dialog is up meanwhile; the room answers first) and under `claude -p`. One turn
 * each holds both cases: Allow, then Deny. No answer in time and Chips stopped stay in
 * test/connect-claude-asks-cli.pg.test.ts, which has no browser to add.
 */
let tty: Tty | null = null;
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus && tty)
    await testInfo.attach("terminal", { body: tty.screen(), contentType: "text/plain" });
  tty = null; // closed by the scratch fixture
});

/** A command Claude Code 2.1.141 asks about, in the terminal and under -p ("This command requires approval"). */
const creates = (file: string) => `node -e 'require("fs").writeFileSync("${file}","x")'`;
const DENIED = "A person in the Chips room denied this tool call: ";
/** A connect hook's applied receipt: the answer reached Claude Code, which then ran the call or not ([ASK4]). */
const REACHED = "the answer reached Claude Code";

test("[CON3] [CON5] [ASK4] [ASK8] a person clicks Allow and Deny in the room for a real Claude Code asking in a terminal and under claude -p: allowed ran, denied did not and the model read why; request, shown, answer and receipt in the log", async ({
  page,
  workspace,
  harness,
  loginAs,
  scratch,
}) => {
  test.setTimeout(240_000);
  const model = await stepsModel({
    "Create t-allowed and t-denied": [bash(creates("t-allowed.txt")), bash(creates("t-denied.txt"))],
    "Create p-allowed and p-denied": [bash(creates("p-allowed.txt")), bash(creates("p-denied.txt"))],
  });
  scratch.closes(model);
  const c = scratch.closes(await connectClaude(baseURL(), workspace, ["--ask-seconds", "120"]));
  const exists = (f: string) => fs.existsSync(path.join(c.project, f));
  tty = await startClaudeTty({
    project: c.project,
    configDir: path.join(c.project, "..", "claude-config"),
    home: path.join(c.project, "..", "home"),
    modelUrl: model.url,
  });
  scratch.closes(tty);
  await loginAs(page);

  // Interactive: the terminal's dialog is up, and the room answers first.
  typePrompt(tty, "Create t-allowed and t-denied");
  const allowed = permissionCard(page, "t-allowed.txt");
  await expect(allowed).toBeVisible({ timeout: AGENT });
  const turn = await runOf(harness, "Create t-allowed and t-denied", AGENT);
  await expectWaiting(page, turn, "t-allowed.txt");
  await tty.waitFor(/Do you want to proceed\?/, "the terminal's own dialog, up meanwhile");
  // [ASK8] Unanswered, the terminal's dialog decides: the card never says deny.
  await expect(allowed).toContainText(/Unanswered by .*: left to the prompt in the agent’s terminal\./);
  await clickAllow(allowed);
  await expectApplied(allowed, "Allow", REACHED);
  // Applied = handed to Claude Code, which then runs the command.
  await expect.poll(() => exists("t-allowed.txt"), { timeout: AGENT }).toBe(true);
  const denied = permissionCard(page, "t-denied.txt");
  await clickDeny(denied, "not in this repo");
  await expectApplied(denied, "Deny", REACHED);
  await tty.waitFor(/FINAL /, "the turn's end");
  expect(exists("t-denied.txt")).toBe(false);
  expect(modelWasTold(model, `${DENIED}not in this repo`), "the model read the denial").toBe(true);
  await expect(new RunPanelView(page, turn).root.getByTestId("run-needs-you")).toHaveCount(0);
  const settled = ["run.asked", "run.ask_shown:browser", "run.answered:allow", "run.answer_applied:applied"];
  const refused = ["run.asked", "run.ask_shown:browser", "run.answered:deny", "run.answer_applied:applied"];
  expect(await askTrail(harness, turn)).toEqual([...settled, ...refused]);

  // claude -p: nothing would ask, so Chips' hook holds the call for the room.
  const out = claudePrint({ project: c.project, modelUrl: model.url, prompt: "Create p-allowed and p-denied" });
  const pAllowed = permissionCard(page, "p-allowed.txt");
  await expect(pAllowed).toBeVisible({ timeout: AGENT });
  const print = await runOf(harness, "Create p-allowed and p-denied", AGENT);
  await expectWaiting(page, print, "p-allowed.txt");
  // [ASK8] Under -p Claude Code's rules refuse a call nobody answered.
  await expect(pAllowed).toContainText(/Unanswered by .*: the agent’s safe default applies \(deny\)\./);
  await clickAllow(pAllowed);
  await expectApplied(pAllowed, "Allow", REACHED);
  await expect.poll(() => exists("p-allowed.txt"), { timeout: AGENT }).toBe(true);
  const pDenied = permissionCard(page, "p-denied.txt");
  await clickDeny(pDenied, "ask Dana first");
  expect(finalOf(await out)).toMatch(new RegExp(`^FINAL .* \\| ${DENIED}ask Dana first$`));
  expect(exists("p-denied.txt")).toBe(false);
  await expectApplied(pDenied, "Deny", REACHED);
  expect(await askTrail(harness, print)).toEqual([...settled, ...refused]);
});
