import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { command, receipts } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
const procs: ChildProcess[] = [];
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
});
afterAll(async () => {
  procs.forEach((p) => p.kill("SIGKILL"));
  await server?.close();
});

/** The raw harness as its own process; resolves with its run id once it started. */
async function rawHarness(steps: number, tickMs: number) {
  const proc = spawn(
    process.execPath,
    [
      path.resolve("test/fixtures/raw-poll-harness.mjs"),
      server.url,
      ws.token,
      ws.workspace_id,
      ws.space_id,
      ws.harness_id,
      String(steps),
      String(tickMs),
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  procs.push(proc);
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once("exit", r));
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  await until(() => {
    if (code !== undefined) throw new Error(`the raw harness exited (${code}):\n${out}`);
    return /raw: run (run_\w+)/.test(out);
  }, "the raw harness started its run");
  return { runId: /raw: run (run_\w+)/.exec(out)![1], output: () => out, exited };
}

const runOf = async (runId: string) => (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
const applied = (runId: string, commandId: string) => async () =>
  (await receipts(server, ws, runId)).commands.find((c: any) => c.command_id === commandId)?.receipt === "applied";

describe("[RUN1] [RT3] the control flow against a harness that uses no SDK (raw HTTP polling)", () => {
  it("[RUN1] pause stops its statuses until resume; steer is quoted next; cancel ends the run cancelled after its ack", async () => {
    const h = await rawHarness(200, 80);
    await until(async () => (await runOf(h.runId)).plan.some((s: any) => s.state === "done"), "some work done");

    const pause = await command(server, ws, h.runId, "pause");
    await until(applied(h.runId, pause.body.command_id), "pause applied", 20_000);
    expect((await runOf(h.runId)).state).toBe("paused");
    const resume = await command(server, ws, h.runId, "resume");
    await until(applied(h.runId, resume.body.command_id), "resume applied", 20_000);

    const guidance = `take the scenic route ${Date.now()}`;
    const steer = await command(server, ws, h.runId, "steer", guidance);
    await until(applied(h.runId, steer.body.command_id), "steer applied", 20_000);
    await until(
      async () =>
        (await readEvents(server, ws)).some((e) => e.type === "message.posted" && e.text === `Steering: "${guidance}"`),
      "the guidance quoted",
    );

    const cancel = await command(server, ws, h.runId, "cancel");
    await until(async () => (await runOf(h.runId)).state === "finished", "finished", 20_000);
    expect(await h.exited).toBe(0);

    const events = (await readEvents(server, ws)).filter((e) => e.run_id === h.runId);
    const seqOf = (pred: (e: any) => boolean) => events.find(pred)?.seq as number;
    const pauseAck = seqOf((e) => e.type === "run.command_acked" && e.command_id === pause.body.command_id);
    const resumeAck = seqOf((e) => e.type === "run.command_acked" && e.command_id === resume.body.command_id);
    const between = events.filter(
      (e) => e.seq > pauseAck && e.seq < resumeAck && (e.type === "run.status" || e.type === "run.step"),
    );
    expect(between).toEqual([]);
    const steerAck = seqOf((e) => e.type === "run.command_acked" && e.command_id === steer.body.command_id);
    const nextMessage = events.find((e) => e.type === "message.posted" && e.seq > steerAck);
    expect(nextMessage?.text).toBe(`Steering: "${guidance}"`);
    const cancelAck = seqOf((e) => e.type === "run.command_acked" && e.command_id === cancel.body.command_id);
    const finished = events.filter((e) => e.type === "run.finished");
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ outcome: "cancelled", actor: { kind: "system" } });
    expect(finished[0].seq).toBeGreaterThan(cancelAck);
    expect((await runOf(h.runId)).outcome).toBe("cancelled");
  });
});
