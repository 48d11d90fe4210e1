import crypto from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./support/fixtures";
import { RawRunner } from "./support/raw-runner";
import { RunPanelView, occurrences } from "./support/run-panel";
import { shot, startFromRoom } from "./support/start-run";

/** A real unified git diff: an added text file, a modified one, a deleted one, a binary. Its text is hostile ([UI4]). */
const DIFF = `diff --git a/src/hello.txt b/src/hello.txt
new file mode 100644
index 0000000..ce01362
--- /dev/null
+++ b/src/hello.txt
@@ -0,0 +1,3 @@
+hello
+<img src=x onerror=alert(1)>
+<script>alert("diff")</script>
diff --git a/README.md b/README.md
index 1111111..2222222 100644
--- a/README.md
+++ b/README.md
@@ -1,3 +1,4 @@
 # Demo
-old line
+new line
+another line
 end
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 3333333..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-bye
-for now
diff --git a/logo.png b/logo.png
new file mode 100644
index 0000000..4444444
Binary files /dev/null and b/logo.png differ
`;
const PATHS = ["src/hello.txt", "README.md", "old.txt", "logo.png"];
const LINT_OUTPUT = `src/hello.txt\n  2:1  error  <img src=x onerror=alert(2)> is not allowed\n\n✖ 1 problem (1 error)\n`;

async function seriousAxe(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test.describe("runner runs in the room (§5)", () => {
  test("[RN3] [UI1] [UI3] [UI4] a run started from the room waits, is taken by a runner, and shows its change-set, checks and diff as text", async ({
    page,
    request,
    admin,
    workspace,
    loginAs,
    scratch,
  }) => {
    test.setTimeout(120_000);
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await loginAs(page);
    const runner = scratch.closes(await RawRunner.create(request, admin.token, workspace));
    const prompt = `Add a hello file ${crypto.randomUUID().slice(0, 8)}`;
    const started = await startFromRoom(page, { prompt, repository: "demo-repo", commands: "npm test\nnpm run lint" });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body.run_id).toMatch(/^run_/);
    const runId = started.body.run_id!;
    await expect(page.getByTestId("start-run-form")).toBeHidden();

    // Queued, visibly waiting; the prompt is on screen once, as the person's message ([UI3] goal_from chips).
    const panel = new RunPanelView(page, runId);
    await expect(panel.root).toHaveAttribute("data-run-state", "queued");
    await expect(panel.root.getByTestId("run-waiting")).toHaveText(/Waiting for a runner/);
    await expect(panel.root.getByTestId("run-request")).toContainText("demo-repo@main");
    await expect(panel.root.getByTestId("run-request")).toContainText("codex");
    await expect(panel.root.getByTestId("run-request")).toContainText("workspace-write");
    await expect(panel.button("run-cancel")).toBeVisible();
    await expect.poll(() => occurrences(page, prompt)).toBe(1);
    await expect(page.getByTestId("run-goal")).toHaveCount(0);
    await expect(page.locator("[data-goal-of]")).toHaveCount(0);

    // A runner dials in: Chips sends it the start request, and the room says who is starting it.
    const welcome = await runner.connect();
    expect(welcome.lease_public_key).toBeTruthy();
    const start = await runner.startOf(runId);
    expect(start).toMatchObject({
      run_id: runId,
      space_id: workspace.space_id,
      repository: "demo-repo",
      base_branch: "main",
      agent: "codex",
      profile: "workspace-write",
      required_commands: ["npm test", "npm run lint"],
    });
    expect(start.prompt.text).toBe(prompt);
    await expect(panel.root.getByTestId("run-assigned")).toHaveText("Starting on e2e runner");
    await expect(panel.root.getByTestId("run-waiting")).toHaveCount(0);
    await expect(panel.root).toHaveAttribute("data-run-state", "queued");

    // It starts, with a step begun and one planned.
    await runner.post(
      runner.event(runId, "run.started", { goal: prompt, goal_from: "chips" }),
      runner.event(runId, "run.step", { step_id: "todo-0", title: "Write the file", state: "active" }),
      runner.event(runId, "run.step", { step_id: "todo-1", title: "Test", state: "pending" }),
    );
    await expect(panel.root).toHaveAttribute("data-run-state", "running");
    await expect
      .poll(() =>
        panel.dots.evaluateAll((els) =>
          els.map((e) => `${e.getAttribute("data-step-id")}:${e.getAttribute("data-state")}`),
        ),
      )
      .toEqual(["todo-0:active", "todo-1:pending"]);
    await expect(page.locator(`section[data-run-id="${runId}"]`)).toHaveCount(1); // run.started moved the card on, it did not post another

    // Artifacts to the object store; the change-set names them ([RN3]).
    const diff = await runner.putObject(runId, DIFF);
    const testOut = await runner.putObject(runId, "PASS src/hello.test.ts\nTests: 1 passed\n");
    const lintOut = await runner.putObject(runId, LINT_OUTPUT);
    const head = crypto.createHash("sha1").update(prompt).digest("hex");
    await runner.post(
      runner.runnerEvent(runId, "change-set", "4 files changed", {
        base_sha: "0".repeat(40),
        head_sha: head,
        branch: `chips/${runId.toLowerCase()}`,
        files: [
          { path: "src/hello.txt", status: "added", additions: 3, deletions: 0, binary: false },
          { path: "README.md", status: "modified", additions: 2, deletions: 1, binary: false },
          { path: "old.txt", status: "deleted", additions: 0, deletions: 2, binary: false },
          { path: "logo.png", status: "added", additions: null, deletions: null, binary: true },
        ],
        additions: 5,
        deletions: 3,
        diff,
        checks: [
          { command: "npm test", exit_code: 0, passed: true, duration_ms: 1234, output: testOut },
          { command: "npm run lint", exit_code: 1, passed: false, duration_ms: 456, output: lintOut },
        ],
        cleanup: { policy: "keep", worktree: `chips-${runId.toLowerCase()}` },
      }),
      runner.event(runId, "run.finished", { outcome: "succeeded", summary: "Added src/hello.txt" }),
    );
    await expect(panel.root).toHaveAttribute("data-run-state", "finished");
    const cs = panel.root.getByTestId("change-set");
    await expect(cs).toBeVisible();
    await expect(cs.getByTestId("change-set-head")).toHaveText(head.slice(0, 7));
    await expect(cs.getByTestId("change-set-head")).toHaveAttribute("title", head);
    const files = cs.getByTestId("change-set-file");
    await expect.poll(() => files.evaluateAll((els) => els.map((e) => e.getAttribute("data-path")))).toEqual(PATHS);
    const file = (path: string) => cs.locator(`[data-testid="change-set-file"][data-path="${path}"]`);
    await expect(file("src/hello.txt")).toContainText("+3 −0");
    await expect(file("src/hello.txt")).toHaveAttribute("data-status", "added");
    await expect(file("README.md")).toContainText("+2 −1");
    await expect(file("old.txt")).toContainText("+0 −2");
    await expect(file("old.txt")).toHaveAttribute("data-status", "deleted");
    await expect(file("logo.png").getByTestId("change-set-binary")).toHaveText("binary");
    const checks = cs.getByTestId("check");
    await expect(checks).toHaveCount(2);
    await expect(cs.locator('[data-testid="check"][data-command="npm test"]')).toHaveAttribute("data-passed", "true");
    const lint = cs.locator('[data-testid="check"][data-command="npm run lint"]');
    await expect(lint).toHaveAttribute("data-passed", "false");
    await expect(lint).toContainText("exit 1");

    // The failing check's output, read through a fresh signed URL, is text.
    await lint.getByRole("button", { name: "output" }).click();
    await expect(lint.getByRole("button", { name: "output" })).toHaveAttribute("aria-expanded", "true");
    await expect(lint.getByTestId("check-output")).toHaveText(LINT_OUTPUT.trimEnd());

    // Show diff: one block per file, the binary one flagged, the hostile line as text.
    const objectAsks: string[] = [];
    page.on("request", (r) => {
      if (/\/api\/v1\/runs\/[^/]+\/objects\//.test(r.url())) objectAsks.push(r.url());
    });
    await cs.getByTestId("change-set-show-diff").click();
    await expect(cs.getByTestId("change-set-show-diff")).toHaveAttribute("aria-expanded", "true");
    const rendered = cs.getByTestId("diff");
    await expect
      .poll(() => rendered.getByTestId("diff-file").evaluateAll((els) => els.map((e) => e.getAttribute("data-path"))))
      .toEqual(PATHS);
    await expect(rendered.locator('[data-testid="diff-file"][data-path="logo.png"]')).toContainText("Binary file");
    await expect(rendered.locator('[data-testid="diff-file"][data-path="logo.png"] table')).toHaveCount(0);
    const hello = rendered.locator('[data-testid="diff-file"][data-path="src/hello.txt"]');
    await expect(hello).toContainText("<img src=x onerror=alert(1)>");
    await expect(hello).toContainText('<script>alert("diff")</script>');
    await expect(rendered.locator("img, script, iframe")).toHaveCount(0);
    await expect(rendered.locator('[data-testid="diff-file"][data-path="README.md"]')).toContainText("another line");
    expect(objectAsks.length, "Show diff asked Chips for a signed URL").toBeGreaterThan(0);

    // Hide and show again: a new URL is asked for each time.
    await cs.getByTestId("change-set-show-diff").click();
    await expect(cs.getByTestId("diff")).toHaveCount(0);
    const asked = objectAsks.length;
    await cs.getByTestId("change-set-show-diff").click();
    await expect(cs.getByTestId("diff-file")).toHaveCount(PATHS.length);
    expect(objectAsks.length).toBeGreaterThan(asked);

    expect(dialogs).toEqual([]);
    // The change-set, its checks and its diff, open, pass axe in both schemes.
    expect(await seriousAxe(page)).toEqual([]);
    await shot(page, "run-change-set-light", panel.root);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await seriousAxe(page)).toEqual([]);
    await shot(page, "run-change-set-dark", panel.root);

    // Drawn again from the server's read model (a reload), the run keeps its request, runner and change-set.
    await page.reload();
    await expect(panel.root.getByTestId("change-set-file")).toHaveCount(PATHS.length);
    await expect(panel.root.getByTestId("run-request")).toContainText("demo-repo@main");
    await expect(panel.root.getByTestId("run-harness")).toHaveText("e2e runner");
    await expect(page.locator(`section[data-run-id="${runId}"]`)).toHaveCount(1);
  });

  test("[RN3] the object API answers a signed, expiring URL that reads the bytes; a tampered one reads nothing", async ({
    page,
    request,
    admin,
    workspace,
    loginAs,
    scratch,
  }) => {
    await loginAs(page);
    const runner = scratch.closes(await RawRunner.create(request, admin.token, workspace));
    await runner.connect();
    const runId = await runner.takeFromRoom(page, "Sign me an URL");
    await runner.post(runner.event(runId, "run.started", { goal: "Sign me an URL", goal_from: "chips" }));
    const ref = await runner.putObject(runId, DIFF);
    const signed = await page.request.get(`/api/v1/runs/${runId}/objects/${ref.sha256}`);
    expect(signed.status(), await signed.text()).toBe(200);
    const { url, expires_at } = (await signed.json()) as { url: string; expires_at: string };
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
    expect(url).not.toContain(runner.token);
    const bytes = await request.get(url); // no cookie, no token: the signature is the permission
    expect(bytes.status()).toBe(200);
    expect(await bytes.text()).toBe(DIFF);
    const tampered = url.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    expect((await request.get(tampered)).status()).toBeGreaterThanOrEqual(400);
    const noCookie = await request.get(`/api/v1/runs/${runId}/objects/${ref.sha256}`);
    expect(noCookie.status()).toBe(401);
  });
});
