/**
 * `npm run bench -- --only connect`: what Chips' Claude Code hook costs a tool call — the
 * time Claude Code waits for `/bin/sh hook.sh PreToolUse` (spawn to exit, stdin written),
 * with Chips up and with Chips down (the hook never talks to Chips, so both should match).
 * Baselines from the same run: spawning a shell that does nothing but read stdin (the floor
 * any command hook pays), and `node -e 0` (what a Node hook would pay before doing
 * anything). Aim (issue 16): p99 ≤ 50 ms up and down.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { summarize, type Latency } from "../stats";

const ROOT = path.resolve(import.meta.dirname, "../..");
const N = Number(process.env.CHIPS_BENCH_HOOK_CALLS ?? 200);

function once(cmd: string, args: string[], input: string, cwd: string): Promise<number> {
  const t0 = performance.now();
  const p = spawn(cmd, args, { cwd, stdio: ["pipe", "ignore", "ignore"] });
  p.stdin.end(input);
  return new Promise((resolve, reject) => {
    p.once("error", reject);
    p.once("close", () => resolve(performance.now() - t0));
  });
}

async function measure(cmd: string, args: string[], input: string, cwd: string): Promise<Latency> {
  console.error(`  measuring ${path.basename(cmd)} ${args.map((a) => path.basename(a)).join(" ")} ×${N}`);
  for (let i = 0; i < 20; i++) await once(cmd, args, input, cwd); // warm the page cache
  const samples: number[] = [];
  for (let i = 0; i < N; i++) samples.push(await once(cmd, args, input, cwd));
  return summarize(samples);
}

async function waitFor(check: () => boolean, ms: number, what: string) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-bench-hook-"));
  const dataDir = path.join(tmp, "data");
  const port = 46000 + Math.floor(Math.random() * 900);
  const server = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "server.ts")], {
    cwd: ROOT,
    env: { ...process.env, CHIPS_WEB: "0", CHIPS_BANNER: "0", PORT: String(port), HOST: "127.0.0.1", CHIPS_DATA_DIR: dataDir, DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  server.stdout!.on("data", (d) => (out += d));
  try {
    await waitFor(() => /Chips is listening on/.test(out), 120_000, "the server");
    console.error("  server up");
    const url = `http://127.0.0.1:${port}`;
    const token = fs.readFileSync(path.join(dataDir, "harness-token"), "utf8").trim();
    const project = path.join(tmp, "project");
    fs.mkdirSync(project);
    const env = { ...process.env, CHIPS_HOME: path.join(tmp, "home"), CHIPS_URL: url, CHIPS_TOKEN: token };
    const c = spawnSync(process.execPath, [path.join(ROOT, "bin/chips.mjs"), "connect", "claude"], { cwd: project, env, encoding: "utf8" });
    if (c.status !== 0) throw new Error(`chips connect claude failed: ${c.stderr}`);
    const root = path.join(tmp, "home", "claude", fs.readdirSync(path.join(tmp, "home", "claude"))[0]);
    const hook = path.join(root, "hook.sh");
    // A realistic PreToolUse input (Claude Code 2.1.141's shape), about 1 KB.
    const input = JSON.stringify({
      session_id: "5e3ebd29-7905-406b-b1e5-3202932f826a",
      transcript_path: path.join(tmp, "t.jsonl"),
      cwd: project,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "npm test -- --reporter=dot " + "x".repeat(700) },
      tool_use_id: "toolu_000001",
    });
    // One prompt first, so the drainer runs and a run is open, as in a real session.
    await once("/bin/sh", [hook, "UserPromptSubmit"], input.replace('"PreToolUse"', '"UserPromptSubmit"'), project);
    await waitFor(() => fs.existsSync(path.join(root, "drainer.pid")), 30_000, "the drainer");

    const floor = await measure("/bin/sh", ["-c", "cat >/dev/null"], input, project);
    const node = await measure(process.execPath, ["-e", "0"], input, project);
    const up = await measure("/bin/sh", [hook, "PreToolUse"], input, project);
    await waitFor(() => fs.readdirSync(path.join(root, "spool")).length === 0, 120_000, "the queue to drain");
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    const down = await measure("/bin/sh", [hook, "PreToolUse"], input, project);
    const queued = fs.readdirSync(path.join(root, "spool")).length + fs.readdirSync(path.join(root, "state")).filter((f) => f.endsWith(".json")).reduce((n, f) => n + JSON.parse(fs.readFileSync(path.join(root, "state", f), "utf8")).outbox.length, 0);

    const row = (name: string, l: Latency) => `${name.padEnd(34)} ${l.p50.toFixed(1).padStart(7)} ${l.p99.toFixed(1).padStart(7)} ${l.max.toFixed(1).padStart(7)}  n=${l.n}`;
    console.log(`\nClaude Code hook, one PreToolUse call (ms, spawn to exit; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})`);
    console.log(`${"".padEnd(34)} ${"p50".padStart(7)} ${"p99".padStart(7)} ${"max".padStart(7)}`);
    console.log(row("floor: sh reading stdin", floor));
    console.log(row("node -e 0 (a Node hook's start-up)", node));
    console.log(row("chips hook, Chips up", up));
    console.log(row("chips hook, Chips down", down));
    console.log(`ratios (same run): up/floor p50 ${(up.p50 / floor.p50).toFixed(2)}, down/up p99 ${(down.p99 / up.p99).toFixed(2)}, node/hook p50 ${(node.p50 / up.p50).toFixed(2)}`);
    console.log(`aim p99 ≤ 50 ms: up ${up.p99 <= 50 ? "met" : "MISSED"}, down ${down.p99 <= 50 ? "met" : "MISSED"}; ${queued} event(s) waiting on disk for Chips to come back`);
    const pid = Number(fs.readFileSync(path.join(root, "drainer.pid"), "utf8"));
    process.kill(pid, "SIGTERM");
  } finally {
    server.kill("SIGTERM");
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

await main();
