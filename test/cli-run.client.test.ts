import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverWithWorkspace, newHarness, request, startRun, type Workspace } from "./support/api";
import { ack, command, socketHarness } from "./support/harness";
import { type TestServer } from "./support/server";
import { run as runCli } from "../cli/main";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "chips.mjs");

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 })));
afterAll(() => server?.close());

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real CLI as a child process; `onOut` sees its stdout as it comes. */
function chips(args: string[], env: Record<string, string> = {}, onOut?: (all: string) => void): Promise<Result> {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e)) if (k.startsWith("CHIPS_") || k === "DATABASE_URL") delete e[k];
  Object.assign(e, { CHIPS_URL: server.url, CHIPS_DATA_DIR: path.join(ROOT, "no-such-data-dir") }, env);
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: e, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  proc.stdout.setEncoding("utf8").on("data", (d) => {
    stdout += d;
    onOut?.(stdout);
  });
  proc.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    proc.once("error", reject);
    proc.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const lines = (s: string) => s.split("\n").filter((l) => l !== "");

/** A raw /harness harness (no SDK) that answers every command of its runs with `result`. */
function answeringHarness(w: Workspace, result: "applied" | "rejected", reason?: string) {
  const h = socketHarness(server.url, w.token);
  h.socket.on("command", (c: { run_id: string; command_id: string }) => {
    void ack(server, w, c.run_id, c.command_id, result, reason);
  });
  return h;
}

describe("chips run", () => {
  it("[RUN1] chips run pause RUN, a harness that applies it → accepted, delivered, applied; exit 0", async () => {
    const h = answeringHarness(ws, "applied");
    await h.connected();
    const runId = await startRun(server, ws);
    const r = await chips(["run", "pause", runId, "--token", ws.person_token]);
    h.socket.disconnect();
    expect(r.stderr).toBe("");
    expect(lines(r.stdout)).toEqual(["accepted", "delivered", "applied"]);
    expect(r.code).toBe(0);
    expect((await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body.state).toBe("paused");
  });

  it("[RUN1] receipt lines follow the receipt as it advances (the harness acks only after the CLI showed delivered)", async () => {
    const h = socketHarness(server.url, ws.token);
    await h.connected();
    const runId = await startRun(server, ws);
    let acked = false;
    const r = await chips(["run", "steer", runId, "try the other branch", "--token", ws.person_token], {}, (out) => {
      if (!acked && out.includes("delivered\n")) {
        acked = true;
        const c = h.commands.find((x) => x.run_id === runId);
        void ack(server, ws, runId, c.command_id, "applied");
      }
    });
    h.socket.disconnect();
    expect(lines(r.stdout)).toEqual(["accepted", "delivered", "applied"]);
    expect(r.code).toBe(0);
    expect(h.commands.find((x) => x.run_id === runId)).toMatchObject({
      command: "steer",
      text: "try the other branch",
    });
  });

  it("[RUN1] a harness that rejects → rejected: <reason>, exit 1", async () => {
    const other = await newHarness(server, ws, "refuser");
    const rws = { ...ws, token: other.token, harness_id: other.harness_id };
    const h = answeringHarness(rws, "rejected", "mid-write: cannot stop here");
    await h.connected();
    const runId = await startRun(server, rws);
    const r = await chips(["run", "cancel", runId], { CHIPS_TOKEN: ws.person_token });
    h.socket.disconnect();
    expect(lines(r.stdout)).toEqual(["accepted", "delivered", "rejected: mid-write: cannot stop here"]);
    expect(r.code).toBe(1);
  });

  it("[RT3] no harness connected: --timeout 1 gives up with exit 2, the command still accepted", async () => {
    const other = await newHarness(server, ws, "absent");
    const aws = { ...ws, token: other.token, harness_id: other.harness_id };
    const runId = await startRun(server, aws);
    const r = await chips(["run", "pause", runId, "--timeout", "1", "--token", ws.person_token]);
    expect(lines(r.stdout)).toEqual(["accepted"]);
    expect(r.stderr).toContain("timed out after 1 s");
    expect(r.code).toBe(2);
  });

  it("[RUN1] a refused command (resume while running) → error invalid_transition, exit 1", async () => {
    const runId = await startRun(server, ws);
    const r = await chips(["run", "resume", runId, "--token", ws.person_token]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error invalid_transition:");
    expect(r.code).toBe(1);
    const pending = await command(server, ws, runId, "pause");
    expect(pending.status).toBe(201);
    const again = await chips(["run", "cancel", runId, "--token", ws.person_token]);
    expect(again.stderr).toContain("error command_pending:");
    expect(again.code).toBe(1);
  });

  it("[RUN3] a steer to a queued run no runner has taken → error run_not_taken saying when it can be steered, exit 1", async () => {
    const queued = await request(`${server.url}/api/v1/runs`, {
      method: "POST",
      token: ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ space_id: ws.space_id, prompt: "Wait", repository: "nowhere", idempotency_key: "q-1" }),
    });
    expect(queued.status, queued.text).toBe(201);
    const r = await chips(["run", "steer", queued.body.run_id, "go faster", "--token", ws.person_token]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "error run_not_taken: no runner has taken this run yet: it can be steered once a runner takes it (cancel works now)",
    );
    expect(r.code).toBe(1);
  });

  it("the person token defaults to <data dir>/person-token; a harness token is refused (403)", async () => {
    const dataDir = path.dirname(server.chips.boot.adminTokenFile);
    const harnessToken = fs.readFileSync(path.join(dataDir, "harness-token"), "utf8").trim();
    const me = (await request(`${server.url}/api/v1/me`, { token: harnessToken })).body;
    const dws = {
      workspace_id: me.workspace_id,
      space_id: me.spaces[0].id,
      harness_id: me.id,
      token: harnessToken,
    } as Workspace;
    const runId = await startRun(server, dws);
    const r = await chips(["run", "pause", runId, "--timeout", "0.5"], { CHIPS_DATA_DIR: dataDir });
    expect(lines(r.stdout)).toEqual(["accepted"]); // posted as the default owner; nobody answers
    expect(r.code).toBe(2);
    const h = await chips(["run", "pause", runId, "--token", harnessToken]);
    expect(h.stderr).toContain("error forbidden:");
    expect(h.code).toBe(1);
  });

  it("usage errors exit 2 (in process: the CLI's run())", async () => {
    const cases = [
      ["run"],
      ["run", "frobnicate", "run_x"],
      ["run", "pause"],
      ["run", "steer", "run_01K4ZQPX000000000000000005"],
      ["run", "pause", "run_01K4ZQPX000000000000000005", "extra"],
      ["run", "pause", "run_01K4ZQPX000000000000000005", "--timeout", "soon"],
      ["run", "pause", "run_01K4ZQPX000000000000000005", "--timeout", "0"],
      ["run", "pause", "run_01K4ZQPX000000000000000005", "--steps", "3"],
    ];
    for (const c of cases) {
      const r = await inProcess([...c, "--token", ws.person_token]);
      expect(r.code, c.join(" ")).toBe(2);
      expect(r.stderr, c.join(" ")).toContain("usage error");
      expect(r.stdout, c.join(" ")).toBe("");
    }
    const noToken = await inProcess([
      "run",
      "pause",
      "run_01K4ZQPX000000000000000005",
      "--data-dir",
      path.join(ROOT, "no-such-data-dir"),
    ]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("no person token");
    const missing = await inProcess(["run", "pause", "run_01K4ZQPX000000000000000005", "--token", ws.person_token]);
    expect(missing.stderr).toContain("error run_not_found:");
    expect(missing.code).toBe(1);
    const help = await inProcess(["help"]);
    expect(help.stdout).toContain("chips run pause|resume|cancel RUN");
    expect(help.stdout).toContain("chips demo");
  });
});

/** The CLI's entry point called directly, its output captured. */
async function inProcess(argv: string[]): Promise<Result> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env: { CHIPS_URL: server.url },
    io: { out: (t) => void (stdout += t), err: (t) => void (stderr += t) },
  });
  return { code, stdout, stderr };
}
