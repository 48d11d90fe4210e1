import fs from "node:fs";
import type { APIRequestContext } from "@playwright/test";
import os from "node:os";
import path from "node:path";
import { Runner } from "../lib/agents/runner/runner";
import { lastUserText, outputsSinceUser, say, shell, startModelServer } from "../test/support/model-server";
import { test, expect } from "./support/fixtures";
import { RawRunner } from "./support/raw-runner";
import { codexRunnerOptions, codexTestKit, makeRepo } from "./support/codex";
import type { Workspace } from "./support/api";

/**
 * "Needs you" with the REAL Codex CLI (0.169.0) launched by a real Runner in the `ask` profile
 * (only the model is scripted): the model asks to run a command that writes a file, Codex's
 * PreToolUse hook hands the call to the job, the job asks the room, and a person clicks in
 * Chromium. Two runs at once — one Allowed, one Denied — so one Codex start-up covers both.
 */
const kit = codexTestKit();
const ALLOW = "Make the file";
const DENY = "Try to write";
/** The runner's log and what the model was told, printed when the test fails (why no card came, say). */
const logs: string[] = [];
let seen: { input: any[] }[] = [];
const told = (prompt: string) =>
  seen
    .filter((r) => lastUserText(r.input) === prompt)
    .flatMap((r) => r.input.filter((i: any) => i.type === "function_call_output").map((i: any) => String(i.output)));
test.afterEach(({}, info) => {
  if (info.status !== info.expectedStatus)
    console.error(`runner log:\n${logs.join("\n")}\nthe model was told: ${JSON.stringify([told(ALLOW), told(DENY)])}`);
  logs.length = 0;
});

async function startAskRun(request: APIRequestContext, ws: Workspace, prompt: string): Promise<string> {
  const r = await request.post("/api/v1/runs", {
    headers: { authorization: `Bearer ${ws.person_token}` },
    data: {
      space_id: ws.space_id,
      prompt,
      repository: "demo",
      profile: "ask",
      idempotency_key: `e2e-codex-asks-${prompt}-${Date.now()}`,
    },
  });
  expect(r.status(), await r.text()).toBe(201);
  return ((await r.json()) as { run_id: string }).run_id;
}

test("[RN9] [ASK4] runner-launched Codex asks in the room: Allow clicked in Chromium → the command ran; Deny → it did not and the model read the denial", async ({
  page,
  request,
  admin,
  workspace,
  harness,
  loginAs,
}) => {
  test.setTimeout(150_000);
  const tmp = (kit.tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-e2e-codex-asks-")));
  const repo = makeRepo(path.join(tmp, "repo"));
  const model = await startModelServer(({ input }) => {
    const prompt = lastUserText(input);
    if (outputsSinceUser(input) > 0) return { items: [say("Done.")] };
    if (prompt === ALLOW) return { items: [shell("echo made > made.txt")] };
    if (prompt === DENY) return { items: [shell("echo nope > nope.txt")] };
    return { items: [say("?")] };
  });
  kit.model = model;
  seen = model.requests;
  const cred = await RawRunner.create(request, admin.token, workspace, "e2e codex asks runner");
  const runner = new Runner({
    ...codexRunnerOptions(cred.token, "e2e codex asks runner", repo, tmp, model.url),
    askSeconds: 90,
    log: (line) => logs.push(line),
  });
  kit.runner = runner;
  await runner.connect();
  await loginAs(page);

  const allowed = await startAskRun(request, workspace, ALLOW);
  const denied = await startAskRun(request, workspace, DENY);

  // The cards, named as a screen reader hears them; the buttons by their names, as a person clicks.
  const allowCard = page.getByRole("region", { name: /asks permission: Bash: echo made > made\.txt/ });
  await allowCard.getByRole("button", { name: "Allow", exact: true }).click();
  const denyCard = page.getByRole("region", { name: /asks permission: Bash: echo nope > nope\.txt/ });
  await denyCard.getByRole("button", { name: "Deny", exact: true }).click();

  await expect(allowCard.getByTestId("ask-outcome")).toHaveAttribute("data-receipt", "applied", { timeout: 60_000 });
  await expect(allowCard.getByTestId("ask-outcome")).toContainText("Owner answered Allow");
  await expect(denyCard.getByTestId("ask-outcome")).toHaveAttribute("data-receipt", "applied", { timeout: 60_000 });

  const finished = async (runId: string) => {
    const panel = page.locator(`section[data-run-id="${runId}"]`);
    await expect(panel).toHaveAttribute("data-run-state", "finished", { timeout: 60_000 });
  };
  await finished(allowed);
  await finished(denied);

  // The files, in each run's own worktree (as the runner said it made it).
  const worktree = async (runId: string) => {
    const r = await request.get(`/api/v1/runs/${runId}/runner-events`, {
      headers: { authorization: `Bearer ${workspace.person_token}` },
    });
    expect(r.status(), await r.text()).toBe(200);
    const { events } = (await r.json()) as { events: { kind: string; payload: { worktree?: string } }[] };
    return events.find((e) => e.kind === "started")!.payload.worktree!;
  };
  expect(fs.readFileSync(path.join(await worktree(allowed), "made.txt"), "utf8")).toBe("made\n");
  expect(fs.existsSync(path.join(await worktree(denied), "nope.txt"))).toBe(false);

  // What the model read after each call: the command's output; the hook's reason.
  expect(told(ALLOW)).toEqual([expect.stringContaining("Process exited with code 0")]);
  expect(told(DENY)).toEqual([
    expect.stringContaining("Command blocked by PreToolUse hook: A person in the Chips room denied this tool call."),
  ]);

  // The log: the request, the person's answer, the runner's receipt — for each run.
  const trail = (runId: string, events: Awaited<ReturnType<typeof harness.events>>) =>
    events
      .filter((e) => e.run_id === runId && /^run\.(asked|answered|answer_applied|ask_closed)$/.test(e.type))
      .map((e) => `${e.type}${e.decision ? `:${e.decision}` : ""}${e.result ? `:${e.result}` : ""}`);
  const events = await harness.events();
  expect(trail(allowed, events)).toEqual(["run.asked", "run.answered:allow", "run.answer_applied:applied"]);
  expect(trail(denied, events)).toEqual(["run.asked", "run.answered:deny", "run.answer_applied:applied"]);
});
