import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHarness, newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { command, receipts } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "chips.mjs");

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
const procs: ChildProcess[] = [];
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await server?.close();
});

interface Demo {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** The run id and room from the first line, once printed. */
  started(): Promise<{ runId: string; spaceId: string }>;
}

/** `chips demo` as its own process, as a person would start it. */
function demo(args: string[]): Demo {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("CHIPS_") || k === "DATABASE_URL") delete env[k];
  env.CHIPS_DATA_DIR = path.join(ROOT, "no-such-data-dir");
  const proc = spawn(process.execPath, [BIN, "demo", "--url", server.url, ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  procs.push(proc);
  let out = "";
  let err = "";
  proc.stdout!.setEncoding("utf8").on("data", (d) => (out += d));
  proc.stderr!.setEncoding("utf8").on("data", (d) => (err += d));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    async started() {
      await until(() => /\n/.test(out) || proc.exitCode !== null, "the demo's first line", 30_000);
      const m = /^demo: run (run_[0-9A-Z]{26}) in (spc_[0-9A-Z]{26})\n/.exec(out);
      if (!m) throw new Error(`unexpected first line:\n${out}\n${err}`);
      return { runId: m[1], spaceId: m[2] };
    },
  };
}

const runEvents = async (ws: Workspace, runId: string) =>
  (await readEvents(server, ws)).filter((e) => e.run_id === runId);
const getRun = async (ws: Workspace, runId: string) =>
  (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
const receipt = async (ws: Workspace, runId: string, commandId: string) =>
  (await receipts(server, ws, runId)).commands.find((c: { command_id: string }) => c.command_id === commandId)?.receipt;
const ackOf = (events: any[], commandId: string) =>
  events.find((e) => e.type === "run.command_acked" && e.command_id === commandId);

/** Each test spawns the CLI (tsx compiles it on start): allow for a busy machine. */
const SLOW = 120_000;

describe("chips demo", () => {
  it(
    "[RUN1] obeys pause (acked once stopped, silent until resumed), steer (quoted next, adds a step), resume and cancel (exit 0)",
    async () => {
      const ws = await newWorkspace(server);
      const d = demo(["--token", ws.token, "--step-ms", "300", "--steps", "200"]);
      const { runId, spaceId } = await d.started();
      expect(spaceId).toBe(ws.space_id);
      await until(
        async () => (await runEvents(ws, runId)).some((e) => e.type === "run.status"),
        "a run.status from the demo",
      );

      // Pause: applied only once the demo stopped; then nothing of the run until resumed.
      const pause = await command(server, ws, runId, "pause");
      expect(pause.status).toBe(201);
      await until(async () => (await receipt(ws, runId, pause.body.command_id)) === "applied", "pause applied");
      expect((await getRun(ws, runId)).state).toBe("paused");

      // Steer while paused: taken on board (acked) at once, acted on after the resume.
      const guidance = "Check the README before touching code";
      const steer = await command(server, ws, runId, "steer", guidance);
      expect(steer.status).toBe(201);
      await until(async () => (await receipt(ws, runId, steer.body.command_id)) === "applied", "steer applied");
      await until(() => d.stdout().includes(`acked steer ${steer.body.command_id}`), "the demo says it took the steer");

      const resume = await command(server, ws, runId, "resume");
      expect(resume.status).toBe(201);
      await until(async () => (await receipt(ws, runId, resume.body.command_id)) === "applied", "resume applied");
      await until(
        async () => (await runEvents(ws, runId)).some((e) => e.type === "run.step" && e.title?.includes(guidance)),
        "the steered step",
        30_000,
      );
      await until(async () => {
        const es = await runEvents(ws, runId);
        const resumed = ackOf(es, resume.body.command_id).seq;
        return es.some((e) => e.type === "run.status" && e.seq > resumed);
      }, "statuses again after the resume");

      const events = await runEvents(ws, runId);
      const pauseAck = ackOf(events, pause.body.command_id);
      const steerAck = ackOf(events, steer.body.command_id);
      const resumeAck = ackOf(events, resume.body.command_id);
      expect(pauseAck).toMatchObject({ result: "applied", actor: { kind: "harness", id: ws.harness_id } });
      expect(pauseAck.seq).toBeLessThan(steerAck.seq);
      expect(steerAck.seq).toBeLessThan(resumeAck.seq);
      // Silent while paused: no status, step or message of the run between the two acks.
      const between = events.filter((e) => e.seq > pauseAck.seq && e.seq < resumeAck.seq);
      expect(between.filter((e) => ["run.status", "run.step", "message.posted"].includes(e.type))).toEqual([]);

      // Steer: the next message quotes the guidance verbatim; the added step is titled from it.
      const nextMessage = events.find((e) => e.type === "message.posted" && e.seq > steerAck.seq);
      expect(nextMessage.text).toContain(`Steering: "${guidance}"`);
      const added = events.find((e) => e.type === "run.step" && e.seq > steerAck.seq && e.title);
      expect(added).toMatchObject({ state: "active", title: `Follow guidance: ${guidance}` });
      expect((await getRun(ws, runId)).plan.some((s: { step_id: string }) => s.step_id === added.step_id)).toBe(true);

      // Progress with estimates, never decreasing.
      const statuses = events.filter((e) => e.type === "run.status");
      expect(statuses.every((s) => typeof s.progress === "number" && typeof s.estimate_seconds === "number")).toBe(
        true,
      );
      const progress = statuses.map((s) => s.progress);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      // Cancel: cancelled only after the demo acked; the process exits 0.
      const cancel = await command(server, ws, runId, "cancel");
      expect(cancel.status).toBe(201);
      expect(await d.exited).toBe(0);
      const final = await runEvents(ws, runId);
      const cancelAck = ackOf(final, cancel.body.command_id);
      expect(cancelAck).toMatchObject({ result: "applied" });
      const fin = final.filter((e) => e.type === "run.finished");
      expect(fin).toHaveLength(1);
      expect(fin[0]).toMatchObject({ outcome: "cancelled", actor: { kind: "system" } });
      expect(fin[0].seq).toBeGreaterThan(cancelAck.seq);
      expect(final.filter((e) => e.seq > cancelAck.seq).map((e) => e.type)).toEqual(["run.finished"]);
      expect(await getRun(ws, runId)).toMatchObject({ state: "finished", outcome: "cancelled", pending: null });
      expect(d.stdout()).toContain("demo: paused");
      expect(d.stdout()).toContain("demo: resumed");
      expect(d.stdout()).toContain("demo: cancelled");
    },
    SLOW,
  );

  it(
    "[RUN1] runs its plan to the end: steps active then done, a message per step, statuses, run.finished succeeded with a summary",
    async () => {
      const ws = await newWorkspace(server);
      const d = demo(["--token", ws.token, "--step-ms", "80", "--steps", "3", "--space", ws.space_id]);
      const { runId } = await d.started();
      expect(await d.exited).toBe(0);
      const events = await runEvents(ws, runId);
      expect(events[0]).toMatchObject({
        type: "run.started",
        plan: [{ step_id: "step-1" }, { step_id: "step-2" }, { step_id: "step-3" }],
      });
      const steps = events.filter((e) => e.type === "run.step").map((e) => `${e.step_id}:${e.state}`);
      expect(steps).toEqual([
        "step-1:active",
        "step-1:done",
        "step-2:active",
        "step-2:done",
        "step-3:active",
        "step-3:done",
      ]);
      expect(events.filter((e) => e.type === "message.posted")).toHaveLength(3);
      expect(events.filter((e) => e.type === "run.status").length).toBe(12);
      expect(events.at(-1)).toMatchObject({ type: "run.finished", outcome: "succeeded", actor: { kind: "harness" } });
      expect(events.at(-1).summary).toMatch(/^Did 3 steps in /);
      expect((await getRun(ws, runId)).plan.map((s: { state: string }) => s.state)).toEqual(["done", "done", "done"]);
      expect(d.stdout()).toContain("demo: finished succeeded");
    },
    SLOW,
  );

  it(
    'SIGTERM finishes the run failed "demo stopped" and exits',
    async () => {
      const ws = await newWorkspace(server);
      const d = demo(["--token", ws.token, "--step-ms", "300", "--steps", "50"]);
      const { runId } = await d.started();
      await until(async () => (await runEvents(ws, runId)).some((e) => e.type === "run.status"), "the demo at work");
      d.proc.kill("SIGTERM");
      expect(await d.exited).toBe(143);
      expect(await getRun(ws, runId)).toMatchObject({ state: "finished", outcome: "failed", summary: "demo stopped" });
      expect(d.stdout()).toContain("demo: finished failed: demo stopped");
    },
    SLOW,
  );

  it(
    "exits non-zero with a message on a bad token, a person's token, or an unknown room",
    async () => {
      const ws = await newWorkspace(server);
      const [bad, person, room] = await Promise.all(
        [
          demo(["--token", "nope"]),
          demo(["--token", ws.person_token]),
          demo(["--token", ws.token, "--space", "spc_01K4ZQPX000000000000000064"]),
        ].map(async (d) => ({ code: await d.exited, out: d.stdout(), err: d.stderr() })),
      );
      expect(bad.code).toBe(1);
      expect(bad.err).toContain("error unauthorized:");
      expect(person.code).toBe(1);
      expect(person.err).toContain("runs as a harness");
      expect(room.code).toBe(1);
      expect(room.err).toContain("error space_not_found:");
      for (const r of [bad, person, room]) expect(r.out).toBe("");
    },
    SLOW,
  );

  it(
    "a command for another run of the same harness is left alone",
    async () => {
      const ws = await newWorkspace(server);
      const h = await newHarness(server, ws, "twin");
      const tws = { ...ws, token: h.token, harness_id: h.harness_id };
      const a = demo(["--token", tws.token, "--step-ms", "300", "--steps", "200"]);
      const b = demo(["--token", tws.token, "--step-ms", "300", "--steps", "200"]);
      const [ra, rb] = await Promise.all([a.started(), b.started()]);
      const pause = await command(server, tws, ra.runId, "pause");
      await until(async () => (await receipt(tws, ra.runId, pause.body.command_id)) === "applied", "a paused");
      await until(() => b.stdout().includes(`${pause.body.command_id} is for another run`), "b saw and left it");
      expect((await getRun(tws, rb.runId)).state).toBe("running");
      for (const [d, r] of [
        [a, ra],
        [b, rb],
      ] as const) {
        await command(server, tws, r.runId, "cancel");
        expect(await d.exited).toBe(0);
      }
    },
    SLOW,
  );
});
