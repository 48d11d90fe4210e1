import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { message, newWorkspace, post, readEvents, runStarted, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "chips.mjs");

let server: TestServer;
let dataDir: string;
let tmp: string;
beforeAll(async () => {
  server = await startTestServer();
  dataDir = path.dirname(server.chips.boot.adminTokenFile);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-cli-"));
});
afterAll(async () => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  await server?.close();
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real CLI as a child process, talking to the test server unless env says otherwise. */
function chips(args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("CHIPS_") || k === "DATABASE_URL") delete env[k];
  Object.assign(env, { CHIPS_URL: server.url, CHIPS_DATA_DIR: path.join(tmp, "no-data-dir") }, opts.env);
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  proc.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  proc.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  proc.stdin.end(opts.input ?? "");
  return new Promise((resolve, reject) => {
    proc.once("error", reject);
    proc.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const lines = (s: string) => s.split("\n").filter((l) => l !== "");
const jsonLines = (s: string) => lines(s).map((l) => JSON.parse(l));

function writeJson(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

/** A port nothing listens on: bound once by us, then released. */
async function deadPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe("chips help", () => {
  it("prints usage for help, --help and no arguments", async () => {
    const results = await Promise.all([[], ["help"], ["--help"]].map((args) => chips(args)));
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("chips post FILE|-");
      expect(r.stdout).toContain("chips events [--workspace WS]");
    }
  });

  it("an unknown command prints usage on stderr and exits 2", async () => {
    const r = await chips(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stderr).toContain("Usage:");
  });

  it("an option the command does not take is a usage error (exit 2)", async () => {
    const r = await chips(["init", "--after", "3"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("init does not take --after");
  });
});

describe("chips init", () => {
  it("--json prints exactly the six keys, in order, and the token posts", async () => {
    const r = await chips(["init", "--json", "--workspace", "CLI ws", "--data-dir", dataDir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(1);
    const made = JSON.parse(r.stdout);
    expect(Object.keys(made)).toEqual(["workspace_id", "space_id", "harness_id", "token", "person_token", "room_url"]);
    expect(made.workspace_id).toMatch(/^ws_[0-9A-Z]{26}$/);
    expect(made.room_url).toContain(made.space_id);

    const ws = { ...made } as Workspace;
    const file = writeJson("init-run.json", runStarted(ws));
    const p = await chips(["post", file], { env: { CHIPS_TOKEN: made.token } });
    expect(p.stderr).toBe("");
    expect(p.code).toBe(0);
    expect(jsonLines(p.stdout).map((e) => [e.type, e.seq])).toEqual([["run.started", 1]]);
  });

  it("takes the admin token from CHIPS_ADMIN_TOKEN and prints a readable summary", async () => {
    const r = await chips(["init", "--space", "lobby"], { env: { CHIPS_ADMIN_TOKEN: server.adminToken } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    for (const re of [/ws_[0-9A-Z]{26}/, /spc_[0-9A-Z]{26}/, /hrn_[0-9A-Z]{26}/, /http:\/\/\S+\/w\/ws_/])
      expect(r.stdout).toMatch(re);
    expect(r.stdout).toContain("harness token");
    expect(r.stdout).toContain("person token");
    expect(r.stdout).toContain("chips post");
  });

  it("without an admin token says where it looked and exits 2", async () => {
    const r = await chips(["init", "--json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("no admin token");
  });

  it("a wrong admin token is the server's 401, exit 1", async () => {
    const r = await chips(["init"], { env: { CHIPS_ADMIN_TOKEN: "chips_adm_nope" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error unauthorized: /);
  });
});

describe("chips post", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace(server);
  });

  it("posts a single event from a file and prints it stored, with its seq", async () => {
    const before = (await readEvents(server, ws)).length;
    const event = message(ws, "from a file");
    const r = await chips(["post", writeJson("single.json", event), "--token", ws.token]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const [stored, ...rest] = jsonLines(r.stdout);
    expect(rest).toEqual([]);
    expect(stored).toMatchObject({ id: event.id, type: "message.posted", text: "from a file", seq: before + 1 });
    expect(typeof stored.ts).toBe("string");
  });

  it("posts a batch from stdin and prints one JSON line per event, in order", async () => {
    const before = (await readEvents(server, ws)).length;
    const batch = { events: [message(ws, "one"), message(ws, "two"), message(ws, "three")] };
    const r = await chips(["post", "-"], { env: { CHIPS_TOKEN: ws.token }, input: JSON.stringify(batch) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const stored = jsonLines(r.stdout);
    expect(stored.map((e) => e.id)).toEqual(batch.events.map((e) => e.id));
    expect(stored.map((e) => e.seq)).toEqual([before + 1, before + 2, before + 3]);
  });

  it("sends a JSON array as one batch", async () => {
    const events = [message(ws, "a"), message(ws, "b")];
    const r = await chips(["post", "-", "--token", ws.token], { input: JSON.stringify(events) });
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((e) => e.text)).toEqual(["a", "b"]);
  });

  it("an invalid event: exit 1, the problem code and pointer on stderr, nothing stored", async () => {
    const before = await readEvents(server, ws);
    const batch = { events: [message(ws, "fine"), { ...message(ws, "bad"), text: 42 }] };
    const r = await chips(["post", "-", "--token", ws.token], { input: JSON.stringify(batch) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const err = lines(r.stderr);
    expect(err[0]).toMatch(/^error validation_failed: /);
    expect(err).toContainEqual(expect.stringMatching(/^ {2}at \/events\/1\/text: /));
    expect(await readEvents(server, ws)).toHaveLength(before.length);
  });

  it("a file that is not JSON is refused before sending (exit 1)", async () => {
    const file = path.join(tmp, "broken.json");
    fs.writeFileSync(file, "{ not json");
    const r = await chips(["post", file, "--token", ws.token]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error invalid_json: /);
  });

  it("a missing FILE is a usage error (exit 2)", async () => {
    const r = await chips(["post", "--token", ws.token]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("post needs a FILE");
  });

  it("without --token or CHIPS_TOKEN uses the default harness token from the data dir", async () => {
    const d = server.chips.boot.defaults;
    const defaults = { workspace_id: d.workspace_id, space_id: d.space_id, harness_id: d.harness_id } as Workspace;
    const event = message(defaults, "as the default harness");
    const r = await chips(["post", writeJson("default.json", event), "--data-dir", dataDir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ id: event.id, workspace_id: d.workspace_id });
  });
});

describe("chips events", () => {
  let ws: Workspace;
  const TOTAL = 1600;
  beforeAll(async () => {
    ws = await newWorkspace(server);
    for (let sent = 0; sent < TOTAL; sent += 500) {
      const n = Math.min(500, TOTAL - sent);
      const r = await post(server, ws.token, {
        events: Array.from({ length: n }, (_, i) => message(ws, `m${sent + i}`)),
      });
      if (r.status !== 201) throw new Error(`batch not stored: ${r.status} ${r.text}`);
    }
  });

  it("pages through more than 1000 events: every seq once, in order", async () => {
    const r = await chips(["events", "--workspace", ws.workspace_id, "--after", "0", "--token", ws.token]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const seqs = jsonLines(r.stdout).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
  });

  it("starts after --after and follows next_after with a small --limit, with a person token", async () => {
    const r = await chips(["events", "--workspace", ws.workspace_id, "--after", "1234", "--limit", "100"], {
      env: { CHIPS_TOKEN: ws.person_token },
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const seqs = jsonLines(r.stdout).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: TOTAL - 1234 }, (_, i) => 1235 + i));
  });

  it("filters by --space and prints nothing past the end", async () => {
    const r = await chips([
      "events",
      "--workspace",
      ws.workspace_id,
      "--after",
      String(TOTAL - 2),
      "--space",
      ws.space_id,
      "--token",
      ws.token,
    ]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map((e) => e.seq)).toEqual([TOTAL - 1, TOTAL]);
    const end = await chips(["events", "--workspace", ws.workspace_id, "--after", String(TOTAL), "--token", ws.token]);
    expect(end.code).toBe(0);
    expect(end.stdout).toBe("");
  });

  it("[CLI1] another workspace's token with --workspace naming this one is refused before any event is asked for, exit 2", async () => {
    const other = await newWorkspace(server);
    const r = await chips(["events", "--workspace", ws.workspace_id, "--token", other.token]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`is not this token's workspace: the harness token belongs to ${other.workspace_id}`);
  });

  it("[CLI1] without --workspace, the token's workspace's events", async () => {
    const r = await chips(["events", "--token", ws.token]);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { workspace_id: string });
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.workspace_id))).toEqual(new Set([ws.workspace_id]));
  });
});

describe("an unreachable server", () => {
  it("exits 2 with a clear message, for every command", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const file = writeJson("unreachable.json", { v: 1 });
    const commands = [
      ["init", "--json"],
      ["post", file],
      ["events", "--workspace", "ws_01M8KFYZMH11RB0Q9P5DQT8P31"],
    ];
    const results = await Promise.all(
      commands.map((args) => chips([...args, "--url", url], { env: { CHIPS_TOKEN: "t", CHIPS_ADMIN_TOKEN: "a" } })),
    );
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`cannot reach Chips at ${url} — is the server running (npm start)?`);
    }
  });

  it("CHIPS_URL picks the server too", async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const r = await chips(["init"], { env: { CHIPS_URL: url, CHIPS_ADMIN_TOKEN: "a" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot reach Chips at ${url}`);
  });
});
