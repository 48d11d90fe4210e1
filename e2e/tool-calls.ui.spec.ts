import { newId } from "../lib/core/protocol";
import { test, expect } from "./support/fixtures";
import type { Harness } from "./support/api";
import { RunPanelView } from "./support/run-panel";

/**
 * [TOOL5] A run's tool calls in the room: under the dots, collapsed to a tally and the newest
 * call, opened to the latest calls with their state, command, exit code and time — live as
 * calls start and end; no timeline item of their own.
 */
let n = 0;
const ev = (h: Harness, runId: string, type: string, fields: Record<string, unknown>) => ({
  v: 1,
  type,
  id: newId("event"),
  workspace_id: h.ws.workspace_id,
  run_id: runId,
  actor: { kind: "harness", id: h.ws.harness_id },
  idempotency_key: `tool-calls-${process.pid}-${Date.now()}-${++n}`,
  ...fields,
});

test("[TOOL5] the run panel's latest calls: collapsed under the dots, opened on demand, live, failed calls marked, no timeline items", async ({
  page,
  harness,
  loginAs,
}) => {
  const room = await loginAs(page);
  const runId = newId("run");
  await harness.post(
    ev(harness, runId, "run.started", {
      space_id: harness.ws.space_id,
      goal: "Publish the package",
      plan: [
        { step_id: "test", title: "Test" },
        { step_id: "publish", title: "Publish" },
      ],
    }),
  );
  const panel = new RunPanelView(page, runId);
  await expect(panel.root).toBeVisible();
  await expect(panel.root.getByTestId("tool-calls")).toHaveCount(0); // nothing before the first call
  const itemsBefore = await room.items.count();

  await harness.post({
    events: [
      ev(harness, runId, "run.step", { step_id: "test", state: "active" }),
      ev(harness, runId, "tool.started", { call_id: "c1", tool: "Bash", summary: "npm test" }),
    ],
  });
  const calls = panel.root.getByTestId("tool-calls");
  await expect(calls).toHaveAttribute("data-running", "1");
  const toggle = calls.getByRole("button");
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(toggle).toContainText("1 call · 1 running");
  await expect(toggle).toContainText("Bash: npm test");

  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  const list = calls.getByRole("list", { name: "Latest tool calls" });
  await expect(list.locator('[data-call-id="c1"]')).toHaveAttribute("data-outcome", "running");

  // Live while open: the call ends failed; a new one starts and ends.
  await harness.post(
    ev(harness, runId, "tool.finished", { call_id: "c1", outcome: "failed", exit_code: 1, duration_ms: 2400 }),
  );
  const c1 = list.locator('[data-call-id="c1"]');
  await expect(c1).toHaveAttribute("data-outcome", "failed");
  await expect(c1).toContainText("exit 1");
  await expect(c1).toContainText("2.4 s");
  await expect(toggle).toContainText("1 call · 1 failed");
  await harness.post({
    events: [
      ev(harness, runId, "tool.started", { call_id: "c2", tool: "Bash", summary: "npm publish --tag next" }),
      ev(harness, runId, "tool.finished", { call_id: "c2", outcome: "ok", exit_code: 0, duration_ms: 800 }),
    ],
  });
  await expect(list.locator("[data-call-id]")).toHaveCount(2);
  // Newest first.
  await expect(list.locator("[data-call-id]").first()).toHaveAttribute("data-call-id", "c2");
  await expect(list.locator('[data-call-id="c2"]')).toContainText("800 ms");
  await expect(calls).toHaveAttribute("data-count", "2");

  // Untrusted text stays text.
  await harness.post(
    ev(harness, runId, "tool.finished", {
      call_id: "c3",
      tool: "Bash",
      summary: "<img src=x onerror=alert(1)> echo hi",
      outcome: "ok",
    }),
  );
  await expect(list.locator('[data-call-id="c3"]')).toContainText("<img src=x onerror=alert(1)> echo hi");
  await expect(list.locator("img")).toHaveCount(0);

  // Closed again: the tally and the newest call on one line.
  await toggle.click();
  await expect(list).toHaveCount(0);
  await expect(toggle).toContainText("3 calls · 1 failed");
  // Calls are the run's, under its card: the timeline gained no item for them.
  expect(await room.items.count()).toBe(itemsBefore);
});
