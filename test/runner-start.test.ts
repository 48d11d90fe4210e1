import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { key, newHarness, request, serverWithWorkspace, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { rawRunner } from "./support/raw-runner";
import type { TestServer } from "./support/server";

/**
 * [RN5] What a start may ask of the agent beside the prompt — instructions, model, provider —
 * from the API and from a task's defaults to the start request a runner receives, on both
 * databases, with runners speaking the raw protocol. (That the real CLIs then obey it is
 * test/runner-instructions.pg.test.ts.)
 */
let server: TestServer;
let ws: Workspace;
let plain: Awaited<ReturnType<typeof rawRunner>>;
let second: Awaited<ReturnType<typeof rawRunner>>;
let secondId: string;
beforeAll(async () => {
  ({ server, ws } = await serverWithWorkspace());
  plain = await rawRunner(server.url, (await newHarness(server, ws, "plain", "runner")).token, { name: "plain" });
  const cred = await newHarness(server, ws, "with a second provider", "runner");
  secondId = cred.harness_id;
  second = await rawRunner(server.url, cred.token, {
    name: "second",
    adapters: [
      { agent: "codex", profiles: ["workspace-write"], version: "raw", models: ["m1"], providers: ["second"] },
    ],
  });
});
afterAll(async () => {
  plain?.close();
  second?.close();
  await server?.close();
});

const send = (url: string, body: Record<string, unknown>) =>
  request(`${server.url}${url}`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ idempotency_key: key(), ...body }),
  });
const startRun = (body: Record<string, unknown>) =>
  send("/api/v1/runs", { space_id: ws.space_id, prompt: "Do it", repository: "demo", ...body });
const eventCount = async () =>
  (await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/events?limit=1000`, { token: ws.token })).body
    .events.length;

const INSTRUCTIONS = "Work in small commits.\nSay what you changed.";

describe("lease.renew from an untrusted runner socket", () => {
  it("what names no run (NUL in it, a number, nothing) is run_not_found, never an internal error", async () => {
    for (const payload of [
      { run_id: "run_\u0000" },
      { run_id: "run_" + "Z".repeat(26) + "\u0000" },
      { run_id: 7 },
      null,
    ]) {
      const ack = await plain.socket.timeout(10_000).emitWithAck("lease.renew", payload);
      expect(ack, JSON.stringify(payload)).toEqual({ ok: false, error: "run_not_found" });
    }
  });
});

describe("[RN5] instructions, model and provider of a start", () => {
  it("[RN5] POST /api/v1/runs carries them into run.queued and the start request, and a run naming a provider goes only to a runner that has it", async () => {
    const r = await startRun({ provider: "second", model: "m1", instructions: INSTRUCTIONS });
    expect(r.status, r.text).toBe(201);
    const runId = r.body.run_id;
    expect(r.body.events[1].request).toMatchObject({ provider: "second", model: "m1", instructions: INSTRUCTIONS });
    const req = await second.startFor(runId);
    expect(req).toMatchObject({ provider: "second", model: "m1", instructions: INSTRUCTIONS });
    expect(plain.starts.some((s) => s.run_id === runId)).toBe(false);
    const run = (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
    expect(run.runner).toEqual({ id: secondId, name: "second" });

    // Left out: the runner's defaults, as before (null provider and model, no instructions).
    const bare = await startRun({});
    const handed = () => [...plain.starts, ...second.starts].find((s) => s.run_id === bare.body.run_id);
    await until(() => !!handed(), "the run without a provider is handed to a runner");
    expect(handed()).toMatchObject({ provider: null, model: null, instructions: "" });
  });

  it("[RN5] a provider for Claude Code, or instructions over 16,000 UTF-8 bytes, are 422 at the field, and nothing is stored", async () => {
    const before = await eventCount();
    const claude = await startRun({ agent: "claude", provider: "bedrock" });
    expect(claude.status).toBe(422);
    expect(claude.body.code).toBe("validation_failed");
    expect(claude.body.errors).toEqual([{ pointer: "/provider", message: expect.stringMatching(/takes no provider/) }]);
    // 5,334 characters, 16,002 bytes: under the limit in characters, over it in bytes.
    const long = await startRun({ instructions: "€".repeat(5334) });
    expect(long.status).toBe(422);
    expect(long.body.errors[0].pointer).toBe("/instructions");
    const task = await send(`/api/v1/spaces/${ws.space_id}/tasks`, {
      title: "Claude with a provider",
      prompt: "Do it",
      agent: "claude",
      provider: "bedrock",
    });
    expect(task.status).toBe(422);
    expect(task.body.errors[0].pointer).toBe("/provider");
    expect(await eventCount()).toBe(before);
  });

  it("[RN5] a task's model, provider and instructions are its runs' defaults; a start's own choice wins", async () => {
    const made = await send(`/api/v1/spaces/${ws.space_id}/tasks`, {
      title: "With defaults",
      prompt: "Do it",
      repository: "demo",
      model: "m1",
      provider: "second",
      instructions: INSTRUCTIONS,
    });
    expect(made.status, made.text).toBe(201);
    const taskId = made.body.task_id;
    const listed = await request(`${server.url}/api/v1/spaces/${ws.space_id}/tasks`, { token: ws.token });
    expect(listed.body.tasks.find((t: any) => t.task_id === taskId)).toMatchObject({
      model: "m1",
      provider: "second",
      instructions: INSTRUCTIONS,
    });

    const first = await send(`/api/v1/spaces/${ws.space_id}/tasks/${taskId}/start`, {});
    expect(first.status, first.text).toBe(201);
    expect(await second.startFor(first.body.run_id)).toMatchObject({
      model: "m1",
      provider: "second",
      instructions: INSTRUCTIONS,
    });
    const own = await send(`/api/v1/spaces/${ws.space_id}/tasks/${taskId}/start`, {
      model: "m2",
      instructions: "Only this.",
    });
    expect(own.status, own.text).toBe(201);
    expect(await second.startFor(own.body.run_id)).toMatchObject({
      model: "m2",
      provider: "second",
      instructions: "Only this.",
    });
  });
});
