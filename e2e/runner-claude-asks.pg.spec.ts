import fs from "node:fs";
import path from "node:path";
import { bash } from "../test/support/messages-server";
import { test, expect } from "./support/fixtures";
import { scriptedClaude, startRealRunner } from "./support/real-runner";
import { RunPanelView } from "./support/run-panel";
import { startFromRoom } from "./support/start-run";
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
 * [RN6] "Needs you" with the REAL Claude Code (2.1.141; only the model is scripted) that a
 * runner launches in its sandbox with the `ask` permission profile: a person starts the run
 * in the room, sees each command the agent wants to run as an ask in Chromium and clicks
 * Allow or Deny; the one nobody answers is denied at the profile's deadline. One job holds
 * all three calls.
 */
/** The `ask` profile's deadline here: long enough for a click on a loaded machine, short enough to wait out once. */
const SECONDS = 10;

test("[RN6] [ASK4] [ASK6] a runner's Claude Code under the ask profile: Allow clicked → the command ran; Deny clicked → not run and the model read why; no answer → denied at the deadline; every receipt in the log", async ({
  page,
  request,
  admin,
  workspace,
  harness,
  loginAs,
  scratch,
}) => {
  test.setTimeout(180_000);
  const model = await stepsModel({
    "Make three files": [bash("echo yes > allowed.txt"), bash("echo no > denied.txt"), bash("echo late > late.txt")],
  });
  scratch.closes(model);
  await startRealRunner(scratch, {
    request,
    adminToken: admin.token,
    workspace,
    name: "e2e claude runner",
    adapters: [scriptedClaude(model)],
    options: { askSeconds: SECONDS },
  });

  await loginAs(page);
  const started = await startFromRoom(page, {
    prompt: "Make three files",
    repository: "demo",
    agent: "claude",
    profile: "ask",
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const runId = started.body.run_id!;
  const panel = new RunPanelView(page, runId);

  const allowed = permissionCard(page, "allowed.txt");
  await expectWaiting(page, runId, "allowed.txt");
  await clickAllow(allowed);
  await expectApplied(allowed, "Allow");
  const denied = permissionCard(page, "denied.txt");
  await clickDeny(denied, "not today, use the fixture");
  await expectApplied(denied, "Deny");
  // Nobody answers the third: the card says so, and the runner denied it by default.
  const late = permissionCard(page, "late.txt");
  await expect(late.getByRole("button", { name: "Allow", exact: true })).toBeVisible({ timeout: AGENT });
  await expectWaiting(page, runId, "late.txt");
  await expect(late).toHaveAttribute("data-ask-state", "closed", { timeout: SECONDS * 1000 + AGENT });
  await expect(late.getByTestId("ask-outcome")).toContainText("Closed: expired — deny applied");
  await expect(panel.root).toHaveAttribute("data-run-state", "finished", { timeout: AGENT });
  await expect(panel.root.getByTestId("run-needs-you")).toHaveCount(0);
  // [TOOL1] The two refused calls were denied, not failed: neither ran.
  const calls = panel.root.getByTestId("tool-calls");
  await expect(calls).toHaveAttribute("data-count", "3");
  await expect(calls).toHaveAttribute("data-failed", "0");

  const said = await request.get(`/api/v1/runs/${runId}/runner-events`, {
    headers: { authorization: `Bearer ${workspace.token}` },
  });
  const events = (
    (await said.json()) as { events: { kind: string; message: string; payload: { worktree?: string } }[] }
  ).events;
  const worktree = events.find((e) => e.kind === "started")!.payload.worktree!;
  // The runner's log: the command that ran with its exit code; the others not run, and why.
  expect(events.filter((e) => /echo (yes|no|late)/.test(e.message)).map((e) => e.message)).toEqual([
    "$ echo yes > allowed.txt (exit 0)",
    "Bash echo no > denied.txt not run: A person in the Chips room denied this tool call: not today, use the fixture",
    `Bash echo late > late.txt not run: No answer from a person in the Chips room within ${SECONDS} s: the call was not run.`,
  ]);
  expect(fs.readFileSync(path.join(worktree, "allowed.txt"), "utf8")).toBe("yes\n");
  expect(fs.existsSync(path.join(worktree, "denied.txt"))).toBe(false);
  expect(fs.existsSync(path.join(worktree, "late.txt"))).toBe(false);
  expect(modelWasTold(model, "A person in the Chips room denied this tool call: not today, use the fixture")).toBe(
    true,
  );
  expect(
    modelWasTold(model, `No answer from a person in the Chips room within ${SECONDS} s: the call was not run.`),
  ).toBe(true);
  expect(await askTrail(harness, runId)).toEqual([
    "run.asked",
    "run.ask_shown:browser",
    "run.answered:allow",
    "run.answer_applied:applied",
    "run.asked",
    "run.ask_shown:browser",
    "run.answered:deny",
    "run.answer_applied:applied",
    "run.asked",
    "run.ask_shown:browser",
    "run.ask_closed:expired",
  ]);
});
