import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedHistory } from "../lib/dev/history";
import { newWorkspace, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "chips.mjs");

/** [EXP1] [EXP2] `chips export` and `chips import`, the real CLI against a real server. */
let server: TestServer;
let a: Workspace;
let b: Workspace;
let runId: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-cli-review-"));

function chips(args: string[], token: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e)) if (k.startsWith("CHIPS_") || k === "DATABASE_URL") delete e[k];
  Object.assign(e, { CHIPS_URL: server.url, CHIPS_TOKEN: token, CHIPS_DATA_DIR: path.join(ROOT, "no-such-data-dir") });
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: e, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  proc.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  proc.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  return new Promise((resolve) => proc.on("close", (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  server = await startTestServer();
  a = await newWorkspace(server);
  b = await newWorkspace(server);
  const r = await request(`${server.url}/api/v1/workspaces/${a.workspace_id}/import`, {
    method: "POST",
    token: a.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(seedHistory({ runs: 4, events: 80, seed: 2 }).doc),
  });
  expect(r.status, r.text).toBe(201);
  runId = r.body.runs[0].to;
}, 120_000);
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("chips export / import", () => {
  it("[EXP1] exports a run as NDJSON in seq order, and a view's runs to a file", async () => {
    const nd = await chips(["export", runId, "--format", "ndjson"], a.person_token);
    expect(nd.code, nd.stderr).toBe(0);
    const seqs = nd.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).seq as number);
    expect(seqs.length).toBeGreaterThan(2);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    const file = path.join(dir, "all.json");
    const all = await chips(
      ["export", "--workspace", a.workspace_id, "--filter", "sort=started", "--output", file],
      a.person_token,
    );
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, "utf8")).runs).toHaveLength(4);
  });

  it("[EXP2] imports a JSON export into another workspace once; the second time stores nothing; NDJSON too", async () => {
    const file = path.join(dir, "all.json");
    const first = await chips(["import", file, "--workspace", b.workspace_id], b.person_token);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/run_\w+ → run_\w+/);
    expect(first.stdout).toMatch(/stored [1-9]\d* events, 0 already there/);
    const again = await chips(["import", file, "--workspace", b.workspace_id], b.person_token);
    expect(again.stdout).toMatch(/stored 0 events, [1-9]\d* already there/);
    const nd = path.join(dir, "one.ndjson");
    expect((await chips(["export", runId, "--format", "ndjson", "--output", nd], a.person_token)).code).toBe(0);
    const c = await newWorkspace(server);
    const fromNd = await chips(["import", nd, "--workspace", c.workspace_id], c.person_token);
    expect(fromNd.code, fromNd.stderr).toBe(0);
    expect(fromNd.stdout).toMatch(/stored [1-9]\d* events/);
  });

  it("says why it cannot: another workspace's run is not found (exit 1)", async () => {
    const r = await chips(["export", runId], b.person_token);
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).toContain("run_not_found");
  });
});
