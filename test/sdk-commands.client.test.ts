import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tcpProxy } from "./support/proxies";
import { ChipsClient, type Command, type CommandControls } from "../lib/agents/sdk";
import { newHarness, newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { command, receipts } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
afterAll(() => server?.close());

const FAST = { attempts: 8, baseMs: 5, maxMs: 50, totalMs: 20_000 };
const clients: ChipsClient[] = [];
afterAll(() => clients.forEach((c) => c.close()));

function sdk(ws: Workspace, url = server.url, token = ws.token) {
  const c = new ChipsClient({ url, token, retry: FAST });
  clients.push(c);
  return c;
}

const getRun = async (runId: string, ws: Workspace) =>
  (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;

describe("SDK: runs", () => {
  it("[RUN1][UI1] run(id) answers the run read model the room draws (lib/core/protocol's Run)", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const run = await client.startRun({
      spaceId: ws.space_id,
      goal: "Read the model",
      plan: [{ step_id: "a", title: "A" }],
    });
    await run.step("a", "active");
    await run.status({
      phase: "reading",
      verbPhrase: "Reading…",
      progress: 0.5,
      usage: { input_tokens: 3, output_tokens: 1 },
    });
    const model = await client.run(run.runId);
    expect(model).toEqual(await getRun(run.runId, ws));
    expect(model).toMatchObject({
      state: "running",
      plan: [{ step_id: "a", state: "active" }],
      status: { verb_phrase: "Reading…", progress: 0.5 },
      usage: { input_tokens: 3 },
    });
    expect(model.plan[0].started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    await expect(client.run("run_01K4ZQPX000000000000000099")).rejects.toMatchObject({ code: "run_not_found" });
  });

  it("[RUN1] startRun → status, step, message, finish: the run as the room draws it", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const run = await client.startRun({
      spaceId: ws.space_id,
      goal: "Fix the flaky test",
      plan: [
        { step_id: "read", title: "Read the test" },
        { step_id: "fix", title: "Fix it" },
      ],
      sessionRef: "term-1",
    });
    expect(run.runId).toMatch(/^run_/);
    expect(run.started).toMatchObject({ type: "run.started", goal: "Fix the flaky test", session_ref: "term-1" });
    await run.step("read", "active");
    await run.status({
      phase: "reading",
      verbPhrase: "Reading the test…",
      progress: 0.25,
      estimateSeconds: 30,
      usage: { input_tokens: 10, output_tokens: 2 },
    });
    await run.message("Found it: a race in the setup.");
    await run.step("read", "done", { note: "read" });
    await run.step("extra", "done", { title: "An extra step" });
    const fin = await run.finish("succeeded", { summary: "Fixed." });
    expect(fin).toMatchObject({ type: "run.finished", outcome: "succeeded" });
    const model = await getRun(run.runId, ws);
    expect(model).toMatchObject({ state: "finished", outcome: "succeeded", summary: "Fixed.", session_ref: "term-1" });
    expect(model.plan.map((s: { step_id: string; state: string }) => [s.step_id, s.state])).toEqual([
      ["read", "done"],
      ["fix", "pending"],
      ["extra", "done"],
    ]);
    const events = (await readEvents(server, ws)).filter((e) => e.run_id === run.runId);
    expect(events.map((e) => e.type)).toEqual([
      "run.started",
      "run.step",
      "run.status",
      "message.posted",
      "run.step",
      "run.step",
      "run.finished",
    ]);
  });
});

describe("SDK: commands", () => {
  it("[RUN1] onCommand gets a pause; apply() → the run is paused; resume → running", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const got: Command[] = [];
    const controls = new Map<string, CommandControls>();
    const sub = client.onCommand((c, ctl) => {
      got.push(c);
      controls.set(c.command_id, ctl);
    });
    await sub.ready();
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Pause me" });
    const pause = await command(server, ws, run.runId, "pause");
    expect(pause.status).toBe(201);
    await until(() => got.some((c) => c.command_id === pause.body.command_id), "the SDK got the pause");
    expect(got[0]).toMatchObject({ type: "run.command", command: "pause", run_id: run.runId });
    await until(
      async () => (await receipts(server, ws, run.runId)).commands[0].receipt === "delivered",
      "delivered on the socket ack",
    );
    const acked = await controls.get(pause.body.command_id)!.apply();
    expect(acked).toMatchObject({ type: "run.command_acked", result: "applied", command_id: pause.body.command_id });
    expect(await controls.get(pause.body.command_id)!.apply()).toEqual(acked); // same answer again
    expect(await getRun(run.runId, ws)).toMatchObject({ state: "paused", pending: null });
    await expect(run.status({ phase: "x", verbPhrase: "y" })).rejects.toMatchObject({
      code: "run_paused",
      status: 409,
    });

    const resume = await command(server, ws, run.runId, "resume");
    await until(() => controls.has(resume.body.command_id), "the SDK got the resume");
    await controls.get(resume.body.command_id)!.apply();
    expect((await getRun(run.runId, ws)).state).toBe("running");
    sub.close();
  });

  it("[RT3] a command sent while the SDK is disconnected arrives after it reconnects by itself; a resend is not handled twice", async () => {
    const ws = await newWorkspace(server);
    const proxy = await tcpProxy(server.url);
    try {
      const client = sdk(ws, proxy.url);
      const got: Command[] = [];
      const controls = new Map<string, CommandControls>();
      const sub = client.onCommand(
        (c, ctl) => {
          got.push(c);
          controls.set(c.command_id, ctl);
        },
        { reconnectDelayMs: 50, reconnectDelayMaxMs: 200 },
      );
      await sub.ready();
      const run = await client.startRun({ spaceId: ws.space_id, goal: "Stay reachable" });

      // Away: the command waits, accepted, on the server.
      proxy.cut();
      await until(() => !sub.connected, "the SDK noticed it is disconnected");
      const steer = await command(server, ws, run.runId, "steer", "look at the logs first");
      expect(steer.status).toBe(201);
      expect((await receipts(server, ws, run.runId)).commands[0].receipt).toBe("accepted");
      proxy.restore();
      await until(
        () => got.some((c) => c.command_id === steer.body.command_id),
        "delivered after the reconnect",
        15_000,
      );
      expect(got[0]).toMatchObject({ command: "steer", text: "look at the logs first" });
      await until(async () => (await receipts(server, ws, run.runId)).commands[0].receipt === "delivered", "delivered");

      // Not acked yet: every reconnect sends it again; the handler still sees it once.
      const dupsBefore = sub.duplicates;
      proxy.cut();
      await until(() => !sub.connected, "disconnected again");
      proxy.restore();
      await until(() => sub.duplicates > dupsBefore, "the server resent the unacked command", 15_000);
      expect(got.filter((c) => c.command_id === steer.body.command_id)).toHaveLength(1);

      await controls.get(steer.body.command_id)!.apply();
      expect((await receipts(server, ws, run.runId)).commands[0]).toMatchObject({ receipt: "applied" });
      sub.close();
    } finally {
      await proxy.close();
    }
  });

  it("[RT3] pollCommands: a harness without sockets gets its commands by polling, each once, and acks them", async () => {
    const ws = await newWorkspace(server);
    const h = await newHarness(server, ws, "poller");
    const pws = { ...ws, token: h.token, harness_id: h.harness_id };
    const client = sdk(pws);
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Poll" });
    const got: Command[] = [];
    const sub = client.pollCommands(
      async (c, { apply, reject }) => {
        got.push(c);
        if (c.command === "pause") await apply();
        else await reject("not now");
      },
      { intervalMs: 50 },
    );
    await sub.ready();
    const pause = await command(server, pws, run.runId, "pause");
    await until(async () => (await getRun(run.runId, pws)).state === "paused", "paused by the poller's ack");
    const steer = await command(server, pws, run.runId, "steer", "skip the docs");
    await until(
      async () => (await receipts(server, pws, run.runId)).commands[1]?.receipt === "rejected",
      "steer rejected",
    );
    expect(
      (await receipts(server, pws, run.runId)).commands.map((c: { receipt: string; reason: string }) => [
        c.receipt,
        c.reason,
      ]),
    ).toEqual([
      ["applied", null],
      ["rejected", "not now"],
    ]);
    expect(got.map((c) => c.command_id)).toEqual([pause.body.command_id, steer.body.command_id]);
    expect(sub.after).toBeGreaterThan(0);
    sub.close();
  });

  it("a person's token is refused on /harness: ready() rejects with unauthorized", async () => {
    const ws = await newWorkspace(server);
    const client = new ChipsClient({ url: server.url, token: ws.person_token });
    clients.push(client);
    const sub = client.onCommand(() => {}, { onError: () => {} });
    await expect(sub.ready()).rejects.toMatchObject({ code: "unauthorized" });
  });
});
