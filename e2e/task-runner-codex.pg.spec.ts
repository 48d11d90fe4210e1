import type { APIRequestContext } from "@playwright/test";
import { newId } from "../lib/core/protocol";
import { StartRequest } from "../lib/core/protocol/runner-contract";
import { Runner } from "../lib/agents/runner/runner";
import { say, shell, startModelServer, toolOutputs } from "../test/support/model-server";
import { test, expect } from "./support/fixtures";
import type { Workspace } from "./support/api";
import { scriptedCodex, startRealRunner } from "./support/real-runner";
import { RoomStateView } from "./support/room-state";

/** The real Runner, keeping each start request it was handed (then handling it as ever). */
class RecordingRunner extends Runner {
  readonly starts: StartRequest[] = [];
  override handleStart(raw: unknown) {
    const parsed = StartRequest.safeParse(raw);
    if (parsed.success) this.starts.push(parsed.data);
    return super.handleStart(raw);
  }
}

let n = 0;
/** A person's request with their API token; answers the JSON, after checking the status. */
async function as(request: APIRequestContext, ws: Workspace, method: "POST" | "PUT", url: string, data: object) {
  const r = await request.fetch(url, {
    method,
    headers: { authorization: `Bearer ${ws.person_token}` },
    data: { idempotency_key: `e2e-task-codex-${Date.now()}-${++n}`, ...data },
  });
  expect(r.status(), await r.text()).toBe(201);
  return r.json();
}
const roomSaved = (ws: Workspace, revision: number, intent: string, outcome: string) => ({
  v: 1,
  type: "room.updated",
  id: newId("event"),
  workspace_id: ws.workspace_id,
  space_id: ws.space_id,
  revision,
  intent,
  outcome,
});

test("[TSK3] [TSK5] a task run on the real Codex runner: the runner's start request is the run page's frozen snapshot after the room and the task changed, and a change outside the write scope fails the scope check in the job", async ({
  page,
  request,
  admin,
  workspace: ws,
  loginAs,
  scratch,
}) => {
  test.setTimeout(180_000);
  // The agent writes one file inside the scope (docs/**) and one outside it, then says so.
  const model = await startModelServer(({ input }) => ({
    items: [
      toolOutputs(input) === 0
        ? shell("mkdir -p docs && printf '# Inside\\n' > docs/inside.md && printf 'stray\\n' > outside.md")
        : say("Wrote docs/inside.md and outside.md."),
    ],
  }));
  scratch.closes(model);
  const runner = await startRealRunner(scratch, {
    request,
    adminToken: admin.token,
    workspace: ws,
    name: "e2e task runner",
    adapters: [scriptedCodex(model.url)],
    as: RecordingRunner,
  });

  // The room as the task starts: revision 1, a decision, and a task writing under docs/.
  await as(request, ws, "POST", "/api/v1/events", roomSaved(ws, 1, "Ship the *docs* first", "Docs render"));
  await as(request, ws, "POST", "/api/v1/events", {
    v: 1,
    type: "decision.recorded",
    id: newId("event"),
    workspace_id: ws.workspace_id,
    space_id: ws.space_id,
    decision_id: "dec-md",
    title: "Markdown only",
    text: "No HTML in docs.",
    status: "active",
  });
  const tasks = `/api/v1/spaces/${ws.space_id}/tasks`;
  const task = {
    title: "Write the docs",
    prompt: "Write docs/inside.md",
    repository: "demo",
    write_scope: ["docs/**"],
  };
  const { task_id: taskId } = await as(request, ws, "POST", tasks, task);

  await loginAs(page);
  await new RoomStateView(page).open();
  const item = page.locator(`[data-testid="task"][data-task-id="${taskId}"]`);
  const answer = page.waitForResponse((r) => new URL(r.url()).pathname === `${tasks}/${taskId}/start`);
  await item.getByTestId("task-start").click();
  const runId = ((await (await answer).json()) as { run_id: string }).run_id;
  await expect.poll(() => runner!.starts.map((s) => s.run_id)).toEqual([runId]);
  const sent = runner.starts[0];

  // The room and the task change after the start: the run keeps what it was started with.
  await as(request, ws, "POST", "/api/v1/events", roomSaved(ws, 2, "Ship the code instead", "Tests pass"));
  await as(request, ws, "PUT", `${tasks}/${taskId}`, { ...task, prompt: "Write something else" });
  expect(sent).toMatchObject({
    task_id: taskId,
    room: { revision: 1, intent: "Ship the *docs* first", outcome: "Docs render" },
    write_scope: ["docs/**"],
    prompt: { text: "Write docs/inside.md", version: 1 },
  });

  // The scope check inside the real job: outside.md is outside docs/**, so the run fails naming it.
  const readRun = async () =>
    (await request.get(`/api/v1/runs/${runId}`, { headers: { authorization: `Bearer ${ws.token}` } })).json();
  await expect.poll(async () => (await readRun()).state, { timeout: 90_000 }).toBe("finished");
  const run = await readRun();
  // What the log froze is what the runner was sent.
  const { task_id, room, decisions, write_scope, prerequisites, prompt } = sent;
  expect(run.request.task).toEqual({ task_id, room, decisions, write_scope, prerequisites, prompt });
  // What the agent itself read (its AGENTS.md guidance) is the start request's room, not the new one.
  expect(JSON.stringify(model.requests)).toContain("Ship the *docs* first");
  expect(JSON.stringify(model.requests)).not.toContain("Ship the code instead");
  expect(run.outcome).toBe("failed");
  expect(run.summary).toContain("outside.md");
  expect(run.summary).not.toContain("docs/inside.md");

  // The run page shows the snapshot field by field as the runner received it.
  await page.goto(`/w/${ws.workspace_id}/runs/${runId}`);
  const snap = page.getByTestId("run-task-snapshot");
  await expect(snap).toHaveAttribute("data-task-id", sent.task_id);
  await expect(snap.getByTestId("run-task-revision")).toHaveText(`r${sent.room.revision}`);
  await expect(snap.getByTestId("run-task-prompt-version")).toHaveText(`v${sent.prompt.version}`);
  await expect(snap.getByTestId("run-task-prompt")).toHaveText(sent.prompt.text);
  await expect(snap.getByTestId("run-task-intent")).toHaveText(sent.room.intent.replace(/\*/g, ""));
  await expect(snap.getByTestId("run-task-outcome")).toHaveText(sent.room.outcome);
  await expect(snap.getByTestId("run-task-scope")).toHaveText(sent.write_scope.join("\n"));
  await expect(snap.getByTestId("run-task-prerequisites")).toHaveText(
    sent.prerequisites.length ? sent.prerequisites.join(", ") : "none",
  );
  await expect(snap.getByTestId("run-task-decisions").locator("li")).toHaveText(
    sent.decisions.map((d) => `${d.title}: ${d.text}`),
  );
});
