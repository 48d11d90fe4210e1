import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ev, post, readEvents, request, serverWithWorkspace, startRun, type Workspace } from "./support/api";
import { command } from "./support/harness";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 })));
afterAll(() => server?.close());

const run = async (runId: string) => (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
const started = (runId: string, callId: string, f: Record<string, unknown> = {}) =>
  ev(ws, "tool.started", { run_id: runId, call_id: callId, tool: "Bash", summary: "npm test", ...f });
const finished = (runId: string, callId: string, f: Record<string, unknown> = {}) =>
  ev(ws, "tool.finished", { run_id: runId, call_id: callId, outcome: "ok", ...f });
const step = (runId: string, stepId: string, state: string) =>
  ev(ws, "run.step", { run_id: runId, step_id: stepId, state });

/** Post and expect a refusal that stores nothing. */
async function refused(body: unknown, status: number, code: string, pointer: string) {
  const before = (await readEvents(server, ws, 0)).length;
  const r = await post(server, ws.token, body);
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toContain("application/problem+json");
  expect(r.body.code).toBe(code);
  expect(r.body.errors[0].pointer).toBe(pointer);
  expect(await readEvents(server, ws, 0)).toHaveLength(before);
  return r.body;
}

describe("[TOOL1] tool.started and tool.finished: shapes and limits", () => {
  it("[TOOL1] both are stored as sent and served with JSON Schemas", async () => {
    const runId = await startRun(server, ws);
    const a = await post(server, ws.token, {
      events: [
        started(runId, "toolu_1", {
          input: "npm test -- --run",
          paths: ["package.json"],
          started_at: "2026-01-02T03:04:05Z",
        }),
        finished(runId, "toolu_1", {
          outcome: "failed",
          exit_code: 3,
          duration_ms: 1234,
          output_bytes: 204_800,
          output: "…last lines",
          output_ref: { key: `${ws.workspace_id}/${runId}/${"a".repeat(64)}`, sha256: "a".repeat(64), bytes: 204_800 },
          files: ["src/x.ts"],
          error: "Exit code 3",
        }),
      ],
    });
    expect(a.status, a.text).toBe(201);
    expect(a.body.events[1]).toMatchObject({
      type: "tool.finished",
      exit_code: 3,
      files: ["src/x.ts"],
      space_id: ws.space_id,
    });
    for (const type of ["tool.started", "tool.finished"]) {
      const s = await request(`${server.url}/schemas/${type}.json`);
      expect(s.status).toBe(200);
      expect(s.body.properties.call_id).toMatchObject({ maxLength: 128 });
    }
  });

  it("[TOOL1] a summary with a line break, fields over their byte limits, a bad outcome or output_ref are 422 at the field", async () => {
    const runId = await startRun(server, ws);
    await refused(started(runId, "c1", { summary: "npm test\nrm -rf /" }), 422, "validation_failed", "/summary");
    await refused(started(runId, "c1", { summary: "é".repeat(251) }), 422, "validation_failed", "/summary");
    await refused(started(runId, "c".repeat(129)), 422, "validation_failed", "/call_id");
    await refused(started(runId, "c1", { input: "x".repeat(4001) }), 422, "validation_failed", "/input");
    await refused(started(runId, "c1", { paths: Array(51).fill("a") }), 422, "validation_failed", "/paths");
    await refused(finished(runId, "c1", { outcome: "maybe" }), 422, "validation_failed", "/outcome");
    await refused(finished(runId, "c1", { output: "ü".repeat(2001) }), 422, "validation_failed", "/output");
    await refused(
      finished(runId, "c1", { output_ref: { key: "k", sha256: "XYZ", bytes: 1 } }),
      422,
      "validation_failed",
      "/output_ref/sha256",
    );
    await refused(finished(runId, "c1", { exit_code: 1.5 }), 422, "validation_failed", "/exit_code");
    await refused(
      ev(ws, "tool.started", { call_id: "c1", tool: "Bash", summary: "x" }),
      422,
      "validation_failed",
      "/run_id",
    );
  });
});

describe("[TOOL2] a call's life in its run", () => {
  it("[TOOL2] a call_id starts once and finishes once; a second start or finish is 409 at /call_id", async () => {
    const runId = await startRun(server, ws);
    expect((await post(server, ws.token, started(runId, "c1"))).status).toBe(201);
    await refused(started(runId, "c1", { summary: "other" }), 409, "invalid_transition", "/call_id");
    expect((await post(server, ws.token, finished(runId, "c1"))).status).toBe(201);
    await refused(finished(runId, "c1", { outcome: "failed" }), 409, "invalid_transition", "/call_id");
    await refused(started(runId, "c1"), 409, "invalid_transition", "/call_id");
    // The same within one batch: all or nothing.
    await refused(
      { events: [started(runId, "c2"), started(runId, "c2")] },
      409,
      "invalid_transition",
      "/events/1/call_id",
    );
    // A retry of the same event (same key) is a replay, not a second call.
    const again = finished(runId, "c3", { tool: "Read", summary: "Read a.ts" });
    expect((await post(server, ws.token, again)).status).toBe(201);
    expect((await post(server, ws.token, again)).status).toBe(200);
  });

  it("[TOOL2] a finish for a call never started is a whole call: it needs its tool and summary (422), and counts once", async () => {
    const runId = await startRun(server, ws);
    await refused(finished(runId, "w1"), 422, "validation_failed", "/tool");
    await refused(finished(runId, "w1", { tool: "exec_command" }), 422, "validation_failed", "/summary");
    const ok = await post(
      server,
      ws.token,
      finished(runId, "w1", { tool: "exec_command", summary: "ls", exit_code: 0 }),
    );
    expect(ok.status, ok.text).toBe(201);
    expect((await run(runId)).tools).toMatchObject({ count: 1, running: 0, failed: 0 });
    await refused(
      finished(runId, "w1", { tool: "exec_command", summary: "ls" }),
      409,
      "invalid_transition",
      "/call_id",
    );
  });

  it("[TOOL2] a named step must be in the plan (422 at /step_id); a finished run takes no more tool events", async () => {
    const runId = await startRun(server, ws);
    await refused(started(runId, "c1", { step_id: "nope" }), 422, "validation_failed", "/step_id");
    expect((await post(server, ws.token, started(runId, "c1", { step_id: "s2" }))).status).toBe(201);
    expect((await post(server, ws.token, ev(ws, "run.finished", { run_id: runId, outcome: "succeeded" }))).status).toBe(
      201,
    );
    await refused(finished(runId, "c1"), 409, "run_finished", "/run_id");
  });

  it("[TOOL2] a paused run's call in hand still finishes", async () => {
    const runId = await startRun(server, ws);
    expect((await post(server, ws.token, started(runId, "c1"))).status).toBe(201);
    const pause = await command(server, ws, runId, "pause");
    expect(pause.status).toBe(201);
    const ack = ev(ws, "run.command_acked", { run_id: runId, command_id: pause.body.command_id, result: "applied" });
    expect((await post(server, ws.token, ack)).status).toBe(201);
    expect((await run(runId)).state).toBe("paused");
    expect((await post(server, ws.token, finished(runId, "c1", { outcome: "denied" }))).status).toBe(201);
    expect((await run(runId)).tools).toMatchObject({ count: 1, running: 0 });
  });

  it("[TOOL2] at most 200 calls are open at once: the 201st start is 409 until one finishes", async () => {
    const runId = await startRun(server, ws);
    const calls = Array.from({ length: 200 }, (_, i) => started(runId, `open-${i}`));
    expect((await post(server, ws.token, { events: calls })).status).toBe(201);
    const body = await refused(started(runId, "open-200"), 409, "invalid_transition", "/call_id");
    expect(body.detail).toContain("200 calls");
    expect((await post(server, ws.token, finished(runId, "open-0"))).status).toBe(201);
    expect((await post(server, ws.token, started(runId, "open-200"))).status).toBe(201);
  });
});

describe("[TOOL4] the one fold: a run's calls and each step's count and time", () => {
  it("[TOOL4] calls go under the step named, else the step active at their start; failures and time go to that step", async () => {
    const runId = await startRun(server, ws);
    const r = await post(server, ws.token, {
      events: [
        started(runId, "before"), // no step active: outside every step
        step(runId, "s1", "active"),
        started(runId, "a", { tool: "Bash", summary: "npm test" }),
        step(runId, "s1", "done"),
        step(runId, "s2", "active"),
        // Its start was in s1: its end still counts there, though s2 is active now.
        finished(runId, "a", { outcome: "failed", exit_code: 1, duration_ms: 700 }),
        started(runId, "b", { tool: "Edit", summary: "Edit src/x.ts", step_id: "s1" }),
        finished(runId, "b", { duration_ms: 300, files: ["src/x.ts"] }),
        finished(runId, "w", { tool: "Bash", summary: "ls", duration_ms: 50 }),
        finished(runId, "before", { duration_ms: 5 }),
      ],
    });
    expect(r.status, r.text).toBe(201);
    const model = await run(runId);
    expect(model.plan.map((s: any) => [s.step_id, s.tools])).toEqual([
      ["s1", { count: 2, failed: 1, ms: 1000 }],
      ["s2", { count: 1, failed: 0, ms: 50 }],
    ]);
    expect(model.tools).toMatchObject({ count: 4, failed: 1, running: 0, ms: 1055, open: [] });
    expect(model.tools.by_tool).toEqual([
      { tool: "Bash", count: 3, failed: 1, ms: 755 },
      { tool: "Edit", count: 1, failed: 0, ms: 300 },
    ]);
    expect(model.tools.last.map((c: any) => [c.call_id, c.step_id, c.outcome, c.exit_code, c.duration_ms])).toEqual([
      ["before", null, "ok", null, 5],
      ["a", "s1", "failed", 1, 700],
      ["b", "s1", "ok", null, 300],
      ["w", "s2", "ok", null, 50],
    ]);
  });

  it("[TOOL4] the panel keeps the newest five; an open call runs until its finish, timed by the server when the agent did not say", async () => {
    const runId = await startRun(server, ws);
    const calls = Array.from({ length: 7 }, (_, i) => started(runId, `c${i}`, { summary: `echo ${i}` }));
    expect((await post(server, ws.token, { events: calls })).status).toBe(201);
    let model = await run(runId);
    expect(model.tools.last.map((c: any) => c.call_id)).toEqual(["c2", "c3", "c4", "c5", "c6"]);
    expect(model.tools).toMatchObject({ count: 7, running: 7 });
    expect((await post(server, ws.token, finished(runId, "c0"))).status).toBe(201);
    expect((await post(server, ws.token, finished(runId, "c6"))).status).toBe(201);
    model = await run(runId);
    expect(model.tools.running).toBe(5);
    const c6 = model.tools.last.find((c: any) => c.call_id === "c6");
    expect(c6.outcome).toBe("ok");
    expect(c6.duration_ms).toBeGreaterThanOrEqual(0);
    expect(c6.duration_ms).toBe(Date.parse(model.updated_at) - Date.parse(c6.ts));
  });

  it("[TOOL4] a call still open when its run finishes ends with it, cancelled, untimed", async () => {
    const runId = await startRun(server, ws);
    expect(
      (await post(server, ws.token, { events: [started(runId, "a"), started(runId, "b"), finished(runId, "a")] }))
        .status,
    ).toBe(201);
    expect((await post(server, ws.token, ev(ws, "run.finished", { run_id: runId, outcome: "succeeded" }))).status).toBe(
      201,
    );
    const model = await run(runId);
    expect(model.tools).toMatchObject({ count: 2, running: 0, open: [] });
    expect(model.tools.last.map((c: any) => [c.call_id, c.outcome, c.duration_ms === null])).toEqual([
      ["a", "ok", false],
      ["b", "cancelled", true],
    ]);
  });
});
