import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import {
  serverWithWorkspace,
  ev,
  newHarness,
  post,
  request,
  runStarted,
  runStatus,
  startRun,
  type Workspace,
} from "./support/api";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

const getRun = async (runId: string) => (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
const finished = (runId: string, outcome = "succeeded", fields = {}) =>
  ev(ws, "run.finished", { run_id: runId, outcome, ...fields });
const step = (runId: string, step_id: string, state: string, fields = {}) =>
  ev(ws, "run.step", { run_id: runId, step_id, state, ...fields });

describe("[RUN1] run lifecycle", () => {
  it("[RUN1] a run posted straight by a harness starts running", async () => {
    const runId = await startRun(server, ws);
    expect((await getRun(runId)).state).toBe("running");
  });

  it("[RUN1] run.started for an existing run with another key is 409 run_exists", async () => {
    const runId = await startRun(server, ws);
    const r = await post(server, ws.token, runStarted(ws, runId));
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("run_exists");
  });

  it("[RUN1] run.started replayed with its own key is the stored event, not run_exists", async () => {
    const e = runStarted(ws);
    const a = await post(server, ws.token, e);
    const b = await post(server, ws.token, e);
    expect([a.status, b.status]).toEqual([201, 200]);
  });

  it("[RUN1] after run.finished, events that require the run are 409 run_finished", async () => {
    const runId = await startRun(server, ws);
    expect((await post(server, ws.token, finished(runId))).status).toBe(201);
    for (const e of [runStatus(ws, runId), step(runId, "s1", "done"), finished(runId, "failed")]) {
      const r = await post(server, ws.token, e);
      expect(r.status, e.type).toBe(409);
      expect(r.body.code).toBe("run_finished");
    }
    const run = await getRun(runId);
    expect(run.state).toBe("finished");
    expect(run.outcome).toBe("succeeded");
  });

  it("[RUN1] an ack must name a command of that run", async () => {
    const runId = await startRun(server, ws);
    const r = await post(
      server,
      ws.token,
      ev(ws, "run.command_acked", { run_id: runId, command_id: newId("command"), result: "applied" }),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors[0].pointer).toBe("/command_id");
  });

  it("[RUN1] a harness cannot drive another harness's run", async () => {
    const runId = await startRun(server, ws);
    const second = await newHarness(server, ws);
    const r = await post(server, second.token, {
      ...runStatus(ws, runId),
      actor: { kind: "harness", id: second.harness_id },
    });
    expect(r.status).toBe(403);
  });
});

describe("runs read model, written with the append", () => {
  it("keeps goal, goal_from, session_ref, plan states with timestamps, latest status, usage, outcome", async () => {
    const runId = newId("run");
    await post(server, ws.token, runStarted(ws, runId, { goal_from: "harness", session_ref: "term-2" }));
    await post(server, ws.token, step(runId, "s1", "active"));
    await post(
      server,
      ws.token,
      runStatus(ws, runId, { verb_phrase: "Reading PO #4471…", progress: 0.25, estimate_seconds: 40 }),
    );
    await post(server, ws.token, step(runId, "s1", "done"));
    await post(server, ws.token, step(runId, "s3", "active", { title: "Added mid-run" }));
    await post(
      server,
      ws.token,
      runStatus(ws, runId, { verb_phrase: "Writing", progress: 0.5, usage: { input_tokens: 10, output_tokens: 5 } }),
    );
    let run = await getRun(runId);
    expect(run).toMatchObject({
      state: "running",
      goal: "Ship the thing",
      goal_from: "harness",
      session_ref: "term-2",
      harness_id: ws.harness_id,
    });
    expect(run.plan.map((s: any) => [s.step_id, s.state])).toEqual([
      ["s1", "done"],
      ["s2", "pending"],
      ["s3", "active"],
    ]);
    expect(run.plan[0].started_at).toBeTruthy();
    expect(run.plan[0].finished_at).toBeTruthy();
    expect(run.plan[2].title).toBe("Added mid-run");
    expect(run.status).toMatchObject({ verb_phrase: "Writing", progress: 0.5 });
    expect(run.usage).toEqual({ input_tokens: 10, output_tokens: 5 });

    await post(
      server,
      ws.token,
      finished(runId, "failed", {
        summary: "tests red",
        usage: { input_tokens: 20, output_tokens: 9, cost_usd: 0.01 },
      }),
    );
    run = await getRun(runId);
    expect(run).toMatchObject({ state: "finished", outcome: "failed", summary: "tests red" });
    expect(run.finished_at).toBeTruthy();
    expect(run.usage.cost_usd).toBe(0.01);
    expect(run.plan[2].state).toBe("failed"); // the active step ends with the run
  });

  it("progress never decreases within a run (422 at /progress)", async () => {
    const runId = await startRun(server, ws);
    expect((await post(server, ws.token, runStatus(ws, runId, { progress: 0.6 }))).status).toBe(201);
    const r = await post(server, ws.token, runStatus(ws, runId, { progress: 0.5 }));
    expect(r.status).toBe(422);
    expect(r.body.errors[0].pointer).toBe("/progress");
    expect((await post(server, ws.token, runStatus(ws, runId, { progress: 0.6 }))).status).toBe(201);
  });

  it("a run.step for an unknown step needs a title", async () => {
    const runId = await startRun(server, ws);
    const r = await post(server, ws.token, step(runId, "nope", "active"));
    expect(r.status).toBe(422);
    expect(r.body.errors[0].pointer).toBe("/step_id");
  });

  it("run events without space_id take their run's space", async () => {
    const runId = await startRun(server, ws);
    const r = await post(server, ws.token, runStatus(ws, runId));
    expect(r.body.events[0].space_id).toBe(ws.space_id);
  });
});

describe("[RN2] runner events are stored once per (run_id, sequence)", () => {
  it("[RN2] a replayed runner event is stored once, in run_events too", async () => {
    const runner = await newHarness(server, ws, "runner", "runner");
    const rws = { ...ws, token: runner.token, harness_id: runner.harness_id };
    const runId = await startRun(server, rws);
    const e = (sequence: number, message: string) => {
      const { idempotency_key: _k, ...rest } = ev(rws, "runner.event", {
        run_id: runId,
        sequence,
        kind: "log",
        message,
        occurred_at: "2026-11-29T10:00:00Z",
      });
      return rest;
    };
    const first = e(1, "one");
    expect((await post(server, runner.token, first)).status).toBe(201);
    const again = await post(server, runner.token, first);
    expect(again.status).toBe(200);
    const other = await post(server, runner.token, { ...e(1, "a different one") });
    expect(other.status).toBe(409);
    expect((await post(server, runner.token, e(2, "two"))).status).toBe(201);
    const rows = await server.chips.services.database.query<{ sequence: number }>(
      (await import("drizzle-orm")).sql`select sequence from run_events where run_id = ${runId} order by sequence`,
    );
    expect(rows.map((r) => Number(r.sequence))).toEqual([1, 2]);
  });
});
