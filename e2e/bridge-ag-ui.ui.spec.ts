import { spawn } from "node:child_process";
import path from "node:path";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { startAgUiAgent, type AgUiAgent } from "../test/support/ag-ui-agent";
import { test, expect } from "./support/fixtures";
import { baseURL } from "./support/api";
import { gate } from "./support/gate";
import { RunPanelView, TypingIndicatorView } from "./support/run-panel";
import { RunsPage } from "./support/review";
import { TestRun, runOf } from "./support/runs";

/**
 * `chips bridge ag-ui URL`: an agent built with the real @ag-ui packages streams into a
 * room through the bridge (the CLI, as a person runs it): its plan (shared state) as dots,
 * its steps, tool calls as the typing indicator, its text as messages; Cancel aborts it.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
let agent: AgUiAgent | null = null;
test.afterEach(async () => {
  await agent?.close();
  agent = null;
});

function bridge(workspaceToken: string, url: string, prompt: string) {
  const proc = spawn(process.execPath, [path.join(ROOT, "bin/chips.mjs"), "bridge", "ag-ui", url, "--prompt", prompt], {
    env: { ...process.env, CHIPS_URL: baseURL(), CHIPS_TOKEN: workspaceToken },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (out += d));
  const done = new Promise<{ code: number | null; out: string }>((r) => proc.once("close", (code) => r({ code, out })));
  return { proc, done };
}

test("[UI1] [UI2] [UI3] [TOOL6] an AG-UI agent streams into the room: plan dots from its state, steps, tool calls (on the panel and the run page, under their step), messages, the end", async ({
  page,
  workspace,
  harness,
  loginAs,
}) => {
  const seen = gate();
  agent = await startAgUiAgent(async function* (input) {
    const ids = { threadId: input.threadId, runId: input.runId };
    yield { type: EventType.RUN_STARTED, ...ids } as BaseEvent;
    yield {
      type: EventType.STATE_SNAPSHOT,
      snapshot: {
        plan: [
          { title: "Look up the order", status: "in_progress" },
          { title: "Draft the reply", status: "pending" },
        ],
      },
    } as BaseEvent;
    yield { type: EventType.STEP_STARTED, stepName: "Lookup" } as BaseEvent;
    yield { type: EventType.TOOL_CALL_START, toolCallId: "tc1", toolCallName: "search_orders" } as BaseEvent;
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId: "tc1", delta: '{"q":"4471"}' } as BaseEvent;
    await seen.p; // until the test has seen the dots and the typing indicator
    yield { type: EventType.TOOL_CALL_END, toolCallId: "tc1" } as BaseEvent;
    yield {
      type: EventType.TOOL_CALL_RESULT,
      toolCallId: "tc1",
      messageId: "r1",
      role: "tool",
      content: '{"status":"confirmed"}',
    } as BaseEvent;
    yield { type: EventType.STEP_FINISHED, stepName: "Lookup" } as BaseEvent;
    yield {
      type: EventType.STATE_DELTA,
      delta: [
        { op: "replace", path: "/plan/0/status", value: "completed" },
        { op: "replace", path: "/plan/1/status", value: "in_progress" },
      ],
    } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant" } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Order **4471** " } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "is confirmed." } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_END, messageId: "m1" } as BaseEvent;
    yield {
      type: EventType.STATE_DELTA,
      delta: [{ op: "replace", path: "/plan/1/status", value: "completed" }],
    } as BaseEvent;
    yield { type: EventType.RUN_FINISHED, ...ids } as BaseEvent;
  });
  await loginAs(page);
  const b = bridge(workspace.token, agent.url, "Confirm PO 4471");
  const runId = await runOf(harness, "Confirm PO 4471");
  const panel = new RunPanelView(page, runId);
  await expect(page.locator(`[data-goal-of="${runId}"]`)).toContainText("Confirm PO 4471");
  await expect
    .poll(() =>
      panel.dots.evaluateAll((els) =>
        els.map((e) => `${e.getAttribute("data-step-id")}:${e.getAttribute("data-state")}`),
      ),
    )
    .toEqual(["todo-0:active", "todo-1:pending", "step-lookup:active"]);
  await expect(new TypingIndicatorView(page, runId).verb).toHaveText("Using search_orders…");
  seen.open();
  await expect(page.locator("[data-seq]").filter({ hasText: "Order 4471 is confirmed." })).toHaveCount(1);
  await expect(panel.root).toHaveAttribute("data-run-state", "finished");
  await expect.poll(() => panel.dotStates()).toEqual(["done", "done", "done"]);
  const r = await b.done;
  expect(r.code, r.out).toBe(0);
  expect(r.out).toContain(`${runId} succeeded`);
  expect(agent.inputs[0].messages.map((m) => [m.role, m.content])).toEqual([["user", "Confirm PO 4471"]]);
  // [TOOL6] its tool call: on the panel, and on the run page under the step it ran in.
  await expect(panel.root.getByTestId("tool-calls")).toHaveAttribute("data-count", "1");
  await page.goto(`/w/${harness.ws.workspace_id}/runs/${runId}`);
  const lookup = page.locator('[data-testid="calls-step"][data-step-id="step-lookup"]');
  await expect(lookup.locator('[data-call-id="tc1"]')).toHaveAttribute("data-outcome", "ok");
  await expect(lookup).toContainText('search_orders {"q":"4471"}');
  // Search by what it ran finds exactly this run: not one whose goal only names the tool and the order.
  const talker = new TestRun(harness, workspace);
  await talker.start({ goal: "Ask search_orders about 4471" });
  await talker.finish();
  const runs = await new RunsPage(page, workspace.workspace_id).open();
  expect(await runs.search('ran:"search_orders q 4471"')).toEqual([runId]);
  expect(await runs.search("tool:search_orders")).toEqual([runId]);
  expect(await runs.search("4471")).toEqual([runId, talker.id].sort());
});

test("[UI5] [RUN2] AG-UI commands: no Pause (AG-UI has none, the panel says so), Steer reruns the agent with the guidance, Cancel aborts it", async ({
  page,
  workspace,
  harness,
  loginAs,
}) => {
  agent = await startAgUiAgent(async function* (input, index) {
    const ids = { threadId: input.threadId, runId: input.runId };
    yield { type: EventType.RUN_STARTED, ...ids } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_START, messageId: `m${index}`, role: "assistant" } as BaseEvent;
    yield {
      type: EventType.TEXT_MESSAGE_CONTENT,
      messageId: `m${index}`,
      delta: `Run ${index} heard: ${String(input.messages.at(-1)?.content)}`,
    } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_END, messageId: `m${index}` } as BaseEvent;
    await new Promise(() => {}); // works until stopped
  });
  await loginAs(page);
  const b = bridge(workspace.token, agent.url, "Keep going");
  const runId = await runOf(harness, "Keep going");
  const panel = new RunPanelView(page, runId);
  await expect(page.locator("[data-seq]").filter({ hasText: "Run 0 heard: Keep going" })).toHaveCount(1);
  // [RUN2] the bridge declares steer and cancel only: no dead Pause button, and the panel says why
  await expect(panel.button("run-steer")).toBeVisible();
  await expect(panel.root.getByTestId("run-pause")).toHaveCount(0);
  await expect(panel.root.getByTestId("run-commands-note")).toHaveText("Its harness does not take pause");
  await panel.button("run-steer").click();
  await panel.root.getByTestId("run-steer-text").fill("Mind the deadline");
  await panel.root.getByTestId("run-steer-send").click();
  await expect(panel.root.locator('[data-receipt="applied"]', { hasText: "steered" })).toBeVisible();
  await expect(page.locator("[data-seq]").filter({ hasText: "Run 1 heard: Mind the deadline" })).toHaveCount(1);
  expect(agent.inputs[1].threadId).toBe(agent.inputs[0].threadId);
  await panel.button("run-cancel").click();
  await panel.root.getByTestId("run-cancel-confirm").click();
  await expect(panel.root.getByTestId("run-state")).toHaveText("cancelled");
  const r = await b.done;
  expect(r.code, r.out).toBe(0);
  await expect.poll(() => agent!.aborted).toBe(2);
});
