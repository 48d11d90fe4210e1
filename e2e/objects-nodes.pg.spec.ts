import { test, expect } from "./support/fixtures";
import { linkPath } from "./support/api";
import { RawRunner } from "./support/raw-runner";
import { RunPanelView } from "./support/run-panel";
import { startOwnServer, type OwnServer } from "./support/own-server";

const DIFF = `diff --git a/src/nodes.txt b/src/nodes.txt
new file mode 100644
--- /dev/null
+++ b/src/nodes.txt
@@ -0,0 +1,2 @@
+uploaded through node A
+read on node B
`;

let nodeB: OwnServer;
test.beforeAll(async () => {
  // A second node on the same PostgreSQL with the same CHIPS_SECRET and a data dir of its own.
  nodeB = await startOwnServer({});
});
test.afterAll(() => nodeB?.stop());

test("[RN3] a diff uploaded through node A opens from a browser on node B", async ({
  page,
  request,
  admin,
  workspace,
}) => {
  // Node A (the suite's server): a runner takes the run and uploads its diff there.
  const runner = await RawRunner.create(request, admin.token, workspace);
  await runner.connect();
  const queued = await request.post("/api/v1/runs", {
    headers: { authorization: `Bearer ${workspace.person_token}` },
    data: {
      space_id: workspace.space_id,
      prompt: "Across nodes",
      repository: "demo-repo",
      idempotency_key: `nodes-${Date.now()}`,
    },
  });
  expect(queued.status(), await queued.text()).toBe(201);
  const runId = ((await queued.json()) as { run_id: string }).run_id;
  await runner.startOf(runId);
  await runner.post(runner.event(runId, "run.started", { goal: "Across nodes", goal_from: "chips" }));
  const diff = await runner.putObject(runId, DIFF);
  await runner.post(
    runner.runnerEvent(runId, "change-set", "1 file changed", {
      base_sha: "0".repeat(40),
      head_sha: "1".repeat(40),
      branch: `chips/${runId.toLowerCase()}`,
      files: [{ path: "src/nodes.txt", status: "added", additions: 2, deletions: 0, binary: false }],
      additions: 2,
      deletions: 0,
      diff,
      checks: [],
      cleanup: { policy: "keep", worktree: `chips-${runId.toLowerCase()}` },
    }),
    runner.event(runId, "run.finished", { outcome: "succeeded", summary: "done" }),
  );

  // Node B: a person logs in there and opens the diff; the signed URL is made and served by B.
  const link = await page.request.post(`${nodeB.baseURL}/api/v1/admin/login-links`, {
    headers: { authorization: `Bearer ${nodeB.adminToken}` },
    data: { workspace_id: workspace.workspace_id, space_id: workspace.space_id },
  });
  expect(link.status()).toBe(201);
  await page.goto(`${nodeB.baseURL}${linkPath(((await link.json()) as { url: string }).url)}`);
  await expect(page.getByTestId("feed-status")).toHaveAttribute("data-status", "live");
  const objectAnswers: string[] = [];
  page.on(
    "response",
    (r) =>
      new URL(r.url()).pathname.startsWith("/objects/") &&
      objectAnswers.push(`${new URL(r.url()).origin} ${r.status()}`),
  );
  const cs = new RunPanelView(page, runId).root.getByTestId("change-set");
  await cs.getByTestId("change-set-show-diff").click();
  const file = cs.getByTestId("diff").locator('[data-testid="diff-file"][data-path="src/nodes.txt"]');
  await expect(file).toContainText("uploaded through node A");
  await expect(file).toContainText("read on node B");
  expect(objectAnswers).toEqual([`${nodeB.baseURL} 200`]);
  runner.close();
});
