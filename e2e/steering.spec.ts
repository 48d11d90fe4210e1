import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { request as apiRequest, type APIRequestContext } from "@playwright/test";
import { io } from "socket.io-client";
import { test, expect } from "./support/fixtures";
import { Admin, Harness, linkPath, type StoredEvent, type Workspace } from "./support/api";
import { startOwnServer, type OwnServer } from "./support/own-server";
import { RoomPage } from "./support/room-page";
import { RunPanelView, TypingIndicatorView } from "./support/run-panel";
import { TestRun } from "./support/runs";

// These specs need a short presence grace, so they run against a server of their own.
let own: OwnServer;
let api: APIRequestContext;
let admin: Admin;
const demos: ChildProcess[] = [];
test.beforeAll(async () => {
  own = await startOwnServer({ CHIPS_PRESENCE_GRACE: "2" });
  api = await apiRequest.newContext({ baseURL: own.baseURL });
  admin = new Admin(api, own.adminToken);
});
test.afterAll(async () => {
  demos.forEach((d) => d.kill("SIGKILL"));
  await api?.dispose();
  await own?.stop();
});

/** The demo harness (`chips demo`) as a process of its own; resolves with its run id. */
async function startDemo(ws: Workspace, steps = 40, stepMs = 500) {
  const proc = spawn(
    process.execPath,
    [
      path.resolve("bin/chips.mjs"),
      "demo",
      "--url",
      own.baseURL,
      "--token",
      ws.token,
      "--space",
      ws.space_id,
      "--steps",
      String(steps),
      "--step-ms",
      String(stepMs),
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  demos.push(proc);
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once("exit", r));
  await expect
    .poll(() => /demo: run (run_\w+)/.exec(out)?.[1] ?? `not yet:\n${out}`, { timeout: 30_000 })
    .toMatch(/^run_/);
  return { proc, runId: /demo: run (run_\w+)/.exec(out)![1], exited, output: () => out };
}

async function openRoom(page: import("@playwright/test").Page, ws: Workspace) {
  const r = await api.post("/api/v1/admin/login-links", {
    headers: { authorization: `Bearer ${own.adminToken}` },
    data: { workspace_id: ws.workspace_id, space_id: ws.space_id },
  });
  return new RoomPage(page).open(own.baseURL + linkPath(((await r.json()) as { url: string }).url));
}

test.describe("[UI5] [RUN1] steering from buttons, with the demo harness as its own process", () => {
  test("[UI5] [UI6] pause, resume, steer and cancel: receipts reach applied, and the run does exactly that", async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const ws = await admin.newWorkspace({ owner: "Dana" });
    const harness = new Harness(api, ws);
    await openRoom(page, ws);
    const demo = await startDemo(ws);
    const panel = new RunPanelView(page, demo.runId);
    await expect(panel.root).toHaveAttribute("data-run-state", "running");
    await expect(panel.root).toHaveAttribute("data-presence", "online");
    await expect(new TypingIndicatorView(page, demo.runId).root).toBeVisible();
    // Only valid buttons are offered; the API refuses the others.
    await expect(panel.button("run-resume")).toHaveCount(0);
    const resumeNow = await api.post(`/api/v1/runs/${demo.runId}/commands`, {
      headers: { authorization: `Bearer ${ws.person_token}` },
      data: { command: "resume", idempotency_key: "too-early" },
    });
    expect(resumeNow.status()).toBe(409);
    expect((await resumeNow.json()).code).toBe("invalid_transition");

    await panel.button("run-pause").click();
    await expect(panel.root.locator('[data-receipt="applied"]', { hasText: "paused the run" })).toBeVisible();
    await expect(panel.root).toHaveAttribute("data-run-state", "paused");
    await expect(panel.root).not.toHaveAttribute("data-pending", /.+/);
    await expect(new TypingIndicatorView(page, demo.runId).root).toHaveCount(0);
    await expect(panel.button("run-pause")).toHaveCount(0);
    const pauseAgain = await api.post(`/api/v1/runs/${demo.runId}/commands`, {
      headers: { authorization: `Bearer ${ws.person_token}` },
      data: { command: "pause", idempotency_key: "twice" },
    });
    expect(pauseAgain.status()).toBe(409);

    await panel.button("run-resume").click();
    await expect(panel.root.locator('[data-receipt="applied"]', { hasText: "resumed the run" })).toBeVisible();
    await expect(panel.root).toHaveAttribute("data-run-state", "running");

    const guidance = `Check the staging logs first ${Date.now()}`;
    await panel.button("run-steer").click();
    await panel.root.getByTestId("run-steer-text").fill(guidance);
    await panel.root.getByTestId("run-steer-send").click();
    await expect(panel.root.locator('[data-receipt="applied"]', { hasText: "steered" })).toBeVisible();
    await expect(page.getByTestId("timeline").getByText(guidance).last()).toBeVisible();

    await panel.button("run-cancel").click();
    await panel.root.getByTestId("run-cancel-confirm").click();
    await expect(panel.root).toHaveAttribute("data-run-state", "finished");
    await expect(panel.root.getByTestId("run-state")).toHaveText("cancelled");
    expect(await demo.exited).toBe(0);

    // The record, by seq: nothing of the run's work between the pause's ack and the resume's;
    // the steer's guidance in the very next message; run.finished only after the cancel's ack.
    const events = (await harness.events()).filter((e) => e.run_id === demo.runId || e.type === "message.posted");
    const ackOf = (command: string) => {
      const cmd = events.find((e) => e.type === "run.command" && e.command === command) as StoredEvent;
      return events.find((e) => e.type === "run.command_acked" && e.command_id === cmd.command_id)!.seq;
    };
    const [paused, resumed, steered, cancelled] = [ackOf("pause"), ackOf("resume"), ackOf("steer"), ackOf("cancel")];
    expect(
      events.filter(
        (e) =>
          e.run_id === demo.runId &&
          e.seq > paused &&
          e.seq < resumed &&
          (e.type === "run.status" || e.type === "run.step"),
      ),
    ).toEqual([]);
    expect(events.some((e) => e.type === "run.status" && e.seq > resumed)).toBe(true);
    const next = events.find((e) => e.type === "message.posted" && e.seq > steered);
    expect(next?.text).toContain(guidance);
    const finished = events.filter((e) => e.type === "run.finished" && e.run_id === demo.runId);
    expect(finished).toHaveLength(1);
    expect(finished[0].outcome).toBe("cancelled");
    expect(finished[0].seq).toBeGreaterThan(cancelled);
  });

  test("[RUN1] a killed harness turns unresponsive past the grace; its cancel waits; Force-finish ends the run failed", async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const ws = await admin.newWorkspace();
    await openRoom(page, ws);
    const demo = await startDemo(ws);
    const panel = new RunPanelView(page, demo.runId);
    await expect(panel.root).toHaveAttribute("data-presence", "online");
    await expect(panel.button("run-force-finish")).toHaveCount(0);
    demo.proc.kill("SIGKILL");
    await expect(panel.root).toHaveAttribute("data-presence", "unresponsive", { timeout: 20_000 });
    await expect(panel.root.getByTestId("run-unresponsive")).toBeVisible();
    await expect(new TypingIndicatorView(page, demo.runId).root).toHaveCount(0);
    await panel.button("run-cancel").click();
    await panel.root.getByTestId("run-cancel-confirm").click();
    await expect(panel.root.locator('[data-receipt="accepted"]', { hasText: "cancelled the run" })).toBeVisible();
    await expect(panel.root).toHaveAttribute("data-pending", "cancelling");
    await panel.button("run-force-finish").click();
    await expect(panel.root).toHaveAttribute("data-run-state", "finished");
    await expect(panel.root.getByTestId("run-state")).toHaveText("failed");
    const run = await (
      await api.get(`/api/v1/runs/${demo.runId}`, { headers: { authorization: `Bearer ${ws.token}` } })
    ).json();
    expect(run).toMatchObject({ state: "finished", outcome: "failed", summary: "harness lost" });
  });

  test("[RT3] a command sent while the harness is away is delivered when it connects", async ({ page }) => {
    const ws = await admin.newWorkspace();
    await openRoom(page, ws);
    const run = new TestRun(new Harness(api, ws), ws);
    await run.start({ goal: "Away for a while", plan: [{ step_id: "a", title: "A" }] });
    const panel = new RunPanelView(page, run.id);
    await panel.button("run-steer").click();
    await panel.root.getByTestId("run-steer-text").fill("when you are back, start with the tests");
    await panel.root.getByTestId("run-steer-send").click();
    const line = panel.root.locator("li[data-command-id]");
    await expect(line).toHaveAttribute("data-receipt", "accepted");
    const got: any[] = [];
    const socket = io(`${own.baseURL}/harness`, { transports: ["websocket"], auth: { token: ws.token } });
    socket.on("command", (c: any, ack: () => void) => {
      got.push(c);
      ack();
    });
    await expect(line).toHaveAttribute("data-receipt", "delivered");
    expect(got.map((c) => c.text)).toEqual(["when you are back, start with the tests"]);
    socket.disconnect();
  });
});
