import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../lib/core/protocol";
import { key, newHarness, newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { rawRunner } from "./support/raw-runner";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [LIM1] What the server itself writes from a person's text fits the limits it publishes, cut
 * on UTF-8 bytes: a run's goal from a long prompt (`POST /api/v1/runs`, a task's start), a
 * runner's name in `run.assigned`. A field that must not be cut (a repository name) is
 * refused at the door instead of stored over its own limit.
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startTestServer();
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
/** No lone surrogate: what a cut between the halves of a pair would leave. */
const wellFormed = (s: string) => !/\p{Cs}/u.test(s);
const send = (method: string, path: string, body: unknown) =>
  request(`${server.url}${path}`, {
    method,
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const startRun = (fields: Record<string, unknown>) =>
  send("POST", "/api/v1/runs", {
    space_id: ws.space_id,
    repository: "demo",
    idempotency_key: key(),
    ...fields,
  });
const eventsOf = async (runId: string) => (await readEvents(server, ws)).filter((e) => e.run_id === runId);

/** A goal cut from `prompt`: within the limit, well-formed, its longest prefix that fits with the ellipsis. */
function expectCutGoal(goal: string, prompt: string) {
  expect(bytes(goal)).toBeLessThanOrEqual(LIMITS.goal);
  expect(bytes(goal)).toBeGreaterThan(LIMITS.goal - 4 - bytes("…"));
  expect(wellFormed(goal)).toBe(true);
  expect(goal.endsWith("…")).toBe(true);
  expect(prompt.startsWith(goal.slice(0, -1))).toBe(true);
}

describe("[LIM1] the server's own text from a person's", () => {
  it("[LIM1] a prompt of 3,000 Japanese characters queues a run whose goal is cut to 4,000 bytes; the runner still gets the whole prompt", async () => {
    const runner = await newHarness(server, ws, "runner", "runner");
    const raw = await rawRunner(server.url, runner.token);
    try {
      const prompt = "日".repeat(3000); // 9,000 bytes
      const r = await startRun({ prompt });
      expect(r.status, r.text).toBe(201);
      const [message, queued] = r.body.events;
      expect(message).toMatchObject({ type: "message.posted", text: prompt });
      expect(queued.type).toBe("run.queued");
      expectCutGoal(queued.goal, prompt);
      expect(queued.request.prompt).toBe(prompt);

      const run = (await request(`${server.url}/api/v1/runs/${r.body.run_id}`, { token: ws.token })).body;
      expect(run.goal).toBe(queued.goal);
      expect((await raw.startFor(r.body.run_id)).prompt).toEqual({ text: prompt, version: 1 });
    } finally {
      raw.close();
    }
  });

  it("[LIM1] a prompt that fits is the goal as it is, and the request does not repeat it", async () => {
    const prompt = "日".repeat(1333); // 3,999 bytes
    const r = await startRun({ prompt });
    expect(r.status, r.text).toBe(201);
    expect(r.body.events[1].goal).toBe(prompt);
    expect(r.body.events[1].request).not.toHaveProperty("prompt");
  });

  it("[LIM1] a field of the request that must not be cut is refused when over its limit in bytes, and nothing is stored", async () => {
    const before = (await readEvents(server, ws)).length;
    const long = await startRun({ prompt: "p", repository: "倉".repeat(100) }); // 100 characters, 300 bytes
    expect(long.status, long.text).toBe(422);
    expect(long.body.errors.map((e: { pointer: string }) => e.pointer)).toContain("/repository");
    const prompt = await startRun({ prompt: "語".repeat(5500) }); // 16,500 bytes
    expect(prompt.status, prompt.text).toBe(422);
    expect(prompt.body.errors.map((e: { pointer: string }) => e.pointer)).toContain("/prompt");
    expect((await readEvents(server, ws)).length).toBe(before);
  });

  it("[LIM1] a task's run: the goal is the prompt cut on a code point (an emoji's two halves stay together), the snapshot the whole prompt", async () => {
    const prompt = "😀".repeat(1500); // 3,000 UTF-16 units, 6,000 bytes
    const made = await send("POST", `/api/v1/spaces/${ws.space_id}/tasks`, {
      title: "Smile",
      prompt,
      repository: "demo",
      idempotency_key: key(),
    });
    expect(made.status, made.text).toBe(201);
    const started = await send("POST", `/api/v1/spaces/${ws.space_id}/tasks/${made.body.task_id}/start`, {
      idempotency_key: key(),
    });
    expect(started.status, started.text).toBe(201);
    const queued = (await eventsOf(started.body.run_id)).find((e) => e.type === "run.queued");
    expectCutGoal(queued.goal, prompt);
    expect(queued.request.task.prompt).toEqual({ text: prompt, version: 1 });
  });

  it("[LIM1] a runner named in 100 Japanese characters is named in run.assigned within the name's 200 bytes", async () => {
    const runner = await newHarness(server, ws, "wide runner", "runner");
    const name = "走".repeat(100); // 300 bytes: a hello's name is counted in characters
    const raw = await rawRunner(server.url, runner.token, { name });
    try {
      const r = await startRun({ prompt: "Assign me" });
      expect(r.status, r.text).toBe(201);
      await raw.startFor(r.body.run_id);
      const assigned = (await eventsOf(r.body.run_id)).find((e) => e.type === "run.assigned");
      expect(bytes(assigned.runner_name)).toBeLessThanOrEqual(LIMITS.name);
      expect(name.startsWith(assigned.runner_name.slice(0, -1))).toBe(true);
    } finally {
      raw.close();
    }
  });
});
