import fs from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { askUser, lastUserText, outputsSinceUser, say, shell, startModelServer } from "../test/support/model-server";
import type { Workspace } from "./support/api";
import { askTrail, clickAllow, clickDeny, expectApplied, permissionCard } from "./support/claude-asks";
import { test, expect } from "./support/fixtures";
import { scriptedCodex, startRealRunner } from "./support/real-runner";

/**
 * "Needs you" with the REAL Codex CLI (0.169.0) launched by a real Runner in the `ask` profile
 * (only the model is scripted): the model asks to run a command that writes a file, Codex's
 * PreToolUse hook hands the call to the job, the job asks the room, and a person clicks in
 * Chromium; likewise Codex's question (`request_user_input`). Three runs at once — Allowed,
 * Denied, a question answered — so one Codex start-up's wait covers all of them.
 */
const ALLOW = "Make the file";
const DENY = "Try to write";
const ASK = "Pick a database";

async function startAskRun(request: APIRequestContext, ws: Workspace, prompt: string): Promise<string> {
  const r = await request.post("/api/v1/runs", {
    headers: { authorization: `Bearer ${ws.person_token}` },
    data: { space_id: ws.space_id, prompt, repository: "demo", profile: "ask", idempotency_key: `e2e-${prompt}` },
  });
  expect(r.status(), await r.text()).toBe(201);
  return ((await r.json()) as { run_id: string }).run_id;
}

test("[RN9] [ASK4] runner-launched Codex asks in the room: Allow clicked in Chromium → the command ran; Deny → it did not and the model read the denial; its question answered by a click → the model read the answer", async ({
  page,
  request,
  admin,
  workspace,
  harness,
  loginAs,
  scratch,
}) => {
  test.setTimeout(150_000);
  const model = scratch.closes(
    await startModelServer(({ input }) => {
      if (outputsSinceUser(input) > 0) return { items: [say("Done.")] };
      const prompt = lastUserText(input);
      if (prompt === ALLOW) return { items: [shell("echo made > made.txt")] };
      if (prompt === DENY) return { items: [shell("echo nope > nope.txt")] };
      if (prompt === ASK)
        return {
          items: [
            askUser([
              {
                id: "db",
                header: "Database",
                question: "Which database?",
                options: [
                  { label: "SQLite", description: "one file" },
                  { label: "PostgreSQL", description: "a server" },
                ],
              },
            ]),
          ],
        };
      return { items: [say("?")] };
    }),
  );
  /** What the model read after its call, for a prompt: the command's output, or the hook's reason. */
  const told = (prompt: string) =>
    model.requests
      .filter((r) => lastUserText(r.input) === prompt)
      .flatMap((r) => r.input.filter((i: any) => i.type === "function_call_output").map((i: any) => String(i.output)));
  const logs: string[] = [];
  scratch.defer(() => {
    const info = test.info();
    if (info.status !== info.expectedStatus)
      console.error(
        `runner log:\n${logs.join("\n")}\nthe model was told: ${JSON.stringify([told(ALLOW), told(DENY), told(ASK)])}`,
      );
  });
  await startRealRunner(scratch, {
    request,
    adminToken: admin.token,
    workspace,
    name: "e2e codex asks runner",
    adapters: [scriptedCodex(model.url)],
    options: { askSeconds: 90, capacity: 3, log: (line) => logs.push(line) },
  });
  await loginAs(page);
  const allowed = await startAskRun(request, workspace, ALLOW);
  const denied = await startAskRun(request, workspace, DENY);
  const asked = await startAskRun(request, workspace, ASK);

  // The cards as a person (or a screen reader) finds them; the buttons by their names.
  const yes = permissionCard(page, "echo made > made.txt");
  const no = permissionCard(page, "echo nope > nope.txt");
  await clickAllow(yes);
  await clickDeny(no, "use the fixture instead");
  const question = page.getByRole("region", { name: /asks: Which database\?/ });
  const sqlite = question.getByRole("button", { name: "SQLite", exact: true });
  await expect(sqlite).toBeEnabled({ timeout: 60_000 });
  await sqlite.click();
  await expectApplied(yes, "Allow");
  await expectApplied(no, "Deny");
  await expect(question.getByTestId("ask-outcome")).toHaveAttribute("data-receipt", "applied", { timeout: 60_000 });
  await expect(question.getByTestId("ask-outcome")).toContainText("Owner answered SQLite");
  for (const runId of [allowed, denied, asked])
    await expect(page.locator(`section[data-run-id="${runId}"]`)).toHaveAttribute("data-run-state", "finished", {
      timeout: 60_000,
    });

  // The files, in each run's own worktree (where the runner said it made it).
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
  expect(told(ALLOW)).toEqual([expect.stringContaining("Process exited with code 0")]);
  expect(told(DENY)).toEqual([
    expect.stringContaining(
      "Command blocked by PreToolUse hook: A person in the Chips room denied this tool call: use the fixture instead",
    ),
  ]);
  expect(told(ASK)).toEqual([expect.stringContaining("A person in the Chips room answered: Which database? → SQLite")]);

  // The log: the request, the person's answer, the runner's receipt.
  expect(await askTrail(harness, allowed)).toEqual([
    "run.asked",
    "run.ask_shown:browser",
    "run.answered:allow",
    "run.answer_applied:applied",
  ]);
  expect(await askTrail(harness, denied)).toEqual([
    "run.asked",
    "run.ask_shown:browser",
    "run.answered:deny",
    "run.answer_applied:applied",
  ]);
  expect(await askTrail(harness, asked)).toEqual([
    "run.asked",
    "run.ask_shown:browser",
    "run.answered",
    "run.answer_applied:applied",
  ]);
});
