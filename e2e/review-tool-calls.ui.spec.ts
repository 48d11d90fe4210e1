import type { Page } from "@playwright/test";
import { newId } from "../lib/core/protocol";
import { test, expect } from "./support/fixtures";
import { Harness, type Workspace } from "./support/api";
import { TestRun } from "./support/runs";
import { RunsPage } from "./support/review";
import { axeViolations } from "./support/axe";

/**
 * [TOOL6] Tool calls where people look back: the run page lists them under the step they
 * happened in, with each step's count and time and failed calls marked; replay shows them
 * at their seq; compare aligns them; search finds runs by what they ran; rollups group them
 * by tool.
 */
let n = 0;
function call(ws: Workspace, runId: string, type: string, fields: Record<string, unknown>) {
  return {
    v: 1,
    type,
    id: newId("event"),
    workspace_id: ws.workspace_id,
    run_id: runId,
    actor: { kind: "harness", id: ws.harness_id },
    idempotency_key: `review-tools-${process.pid}-${Date.now()}-${++n}`,
    ...fields,
  };
}

/** No axe violation on the page as it is, light and dark. */
async function accessible(page: Page, what: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    expect(await axeViolations(page), `${what} (${scheme})`).toEqual([]);
  }
}

/** A finished run: a test step with a passing and a failing command, a publish step with one call, one call outside. */
async function released(harness: Harness, ws: Workspace, goal: string, publish: string) {
  const run = new TestRun(harness, ws);
  await run.start({
    goal,
    plan: [
      { step_id: "test", title: "Run the tests" },
      { step_id: "publish", title: "Publish" },
    ],
  });
  const seqs: Record<string, number> = {};
  const posted = async (e: Record<string, unknown>) => {
    const [stored] = await harness.post(e);
    seqs[`${e.type}:${e.call_id}`] = stored.seq;
  };
  await posted(
    call(ws, run.id, "tool.finished", { call_id: "pre", tool: "Read", summary: "Read package.json", outcome: "ok" }),
  );
  await run.step("test", "active");
  await posted(call(ws, run.id, "tool.started", { call_id: "t1", tool: "Bash", summary: "npm test" }));
  await posted(call(ws, run.id, "tool.finished", { call_id: "t1", outcome: "ok", exit_code: 0, duration_ms: 1500 }));
  await posted(call(ws, run.id, "tool.started", { call_id: "t2", tool: "Bash", summary: "npm run lint" }));
  await posted(
    call(ws, run.id, "tool.finished", {
      call_id: "t2",
      outcome: "failed",
      exit_code: 2,
      duration_ms: 500,
      output: "src/a.ts:3 unused variable <b>x</b>",
      output_bytes: 35,
    }),
  );
  await run.step("test", "done");
  await run.step("publish", "active");
  await posted(call(ws, run.id, "tool.started", { call_id: "p1", tool: "Bash", summary: publish }));
  await posted(call(ws, run.id, "tool.finished", { call_id: "p1", outcome: "ok", exit_code: 0, duration_ms: 3000 }));
  await run.step("publish", "done");
  await run.finish("succeeded");
  return { run, seqs };
}

test("[TOOL6] the run page, replay, compare, search and rollups show a run's tool calls", async ({
  page,
  request,
  workspace,
  loginAs,
}) => {
  test.setTimeout(120_000);
  const harness = new Harness(request, workspace);
  await loginAs(page, workspace);
  const a = await released(harness, workspace, "Release 2.0", "npm publish --tag latest");
  const b = await released(harness, workspace, "Release 2.1 docs", "./deploy-docs.sh");
  const ws = workspace.workspace_id;

  // The run page: calls under their steps, each step's count and time, the failed call marked.
  await page.goto(`/w/${ws}/runs/${a.run.id}`);
  const steps = page.getByTestId("calls-step");
  await expect(steps).toHaveCount(3);
  const test1 = steps.filter({ has: page.locator('[data-call-id="t1"]') });
  await expect(test1).toHaveAttribute("data-step-id", "test");
  await expect(test1.getByTestId("calls-step-tally")).toHaveText("2 calls · 1 failed · 2.0 s");
  await expect(test1.locator("[data-call-id]")).toHaveCount(2);
  const failed = test1.locator('[data-call-id="t2"]');
  await expect(failed).toHaveAttribute("data-outcome", "failed");
  await expect(failed).toContainText("exit 2");
  await failed.locator("summary").click();
  await expect(failed.locator("pre")).toHaveText("src/a.ts:3 unused variable <b>x</b>");
  await expect(failed.locator("b")).toHaveCount(0);
  await accessible(page, "the run page with a call open");
  await expect(steps.filter({ has: page.locator('[data-call-id="p1"]') })).toHaveAttribute("data-step-id", "publish");
  const outside = steps.filter({ has: page.locator('[data-call-id="pre"]') });
  await expect(outside).toHaveAttribute("data-step-id", "");
  await expect(outside).toContainText("Outside any step");
  await expect(page.getByTestId("calls-total")).toHaveText("4 calls · 1 failed · 5.0 s");

  // Replay at the failing call's start: the panel shows it running, as the room did then.
  await page.goto(`/w/${ws}/runs/${a.run.id}/replay?seq=${a.seqs["tool.started:t2"]}`);
  const calls = page.locator(`section[data-run-id="${a.run.id}"]`).getByTestId("tool-calls");
  await expect(calls).toHaveAttribute("data-running", "1");
  await expect(calls.getByRole("button")).toContainText("3 calls · 1 running");
  await calls.getByRole("button").click();
  await expect(calls.locator('[data-call-id="t2"]')).toHaveAttribute("data-outcome", "running");
  await accessible(page, "replay with the panel's calls open");
  // …and at its end, failed.
  await page.goto(`/w/${ws}/runs/${a.run.id}/replay?seq=${a.seqs["tool.finished:t2"]}`);
  await expect(page.locator(`section[data-run-id="${a.run.id}"]`).getByTestId("tool-calls")).toHaveAttribute(
    "data-failed",
    "1",
  );

  // Compare: the calls aligned by tool and by step.
  await page.goto(`/w/${ws}/compare?run=${a.run.id}&run=${b.run.id}`);
  const bash = page.locator('[data-testid="compare-tool"][data-tool="Bash"] td');
  await expect(bash.nth(0)).toHaveAttribute("data-count", "3");
  await expect(bash.nth(0)).toHaveAttribute("data-failed", "1");
  await expect(page.locator('[data-testid="compare-step"][data-step="test"] td').nth(1)).toHaveAttribute(
    "data-calls",
    "2",
  );

  // Search: the runs that ran `npm publish` — exactly one; runs where a call failed — both.
  const runs = await new RunsPage(page, ws).open();
  expect(await runs.search('ran:"npm publish"')).toEqual([a.run.id]);
  expect(await runs.search("failed:tool")).toEqual([a.run.id, b.run.id].sort());

  // Rollups by tool: each tool's calls, runs, failures and times.
  await page.goto(`/w/${ws}/runs/rollups?by=tool`);
  const row = page.locator('[data-testid="rollup-row"][data-key="Bash"]');
  await expect(row).toHaveAttribute("data-calls", "6");
  await expect(row).toHaveAttribute("data-runs", "2");
  await expect(row).toHaveAttribute("data-failed", "2");
  await expect(page.locator('[data-testid="rollup-chart"][data-chart="Calls"]')).toBeVisible();
});
