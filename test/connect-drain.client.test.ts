import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runDrainer } from "../lib/agents/connect/claude/drainer";
import { newWorkspace, readEvents, type Workspace } from "./support/api";
import { callHook, connectClaude, runEvents, waitForRun, type Connected } from "./support/claude-connect";
import { until } from "./support/feed";
import { run as runCli } from "../cli/main";
import { tcpProxy } from "./support/proxies";
import { startTestServer, type TestServer } from "./support/server";

/**
 * How many drainers `chips connect claude` runs, and when one leaves (docs/CONNECT.md). One
 * per connection ([CON1]): every hook call before a starting drainer had written its pid
 * started another. It used to retry for as long as Chips stayed away, so every connection
 * whose Chips went (a test server closed, a laptop off the network) kept a process alive. It
 * now leaves after `staleMs` without a hook call, or without reaching Chips while hooks keep
 * calling ([CON2]): the outbox is on disk, and the next hook call starts a drainer that sends it.
 * Real drainers (one in this process, with short times; others the hook script starts), real
 * hook calls, a real server behind a TCP proxy that is cut.
 */
const drainerPid = (x: Connected) => path.join(x.root, "drainer.pid");
let server: TestServer;
let ws: Workspace;
let c: Connected | null = null;
let proxy: Awaited<ReturnType<typeof tcpProxy>> | null = null;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());
afterEach(async () => {
  // A test that failed while this process stood in for the drainer: close() must not signal it.
  if (c && fs.existsSync(drainerPid(c)) && fs.readFileSync(drainerPid(c), "utf8") === String(process.pid))
    fs.rmSync(drainerPid(c));
  await c?.close();
  await proxy?.close();
  c = null;
  proxy = null;
});

const S = "5e3ebd29-7905-406b-b1e5-d1a1e4000001";
/** The hook starts no drainer while drainer.pid names a live process: this one stands in. */
const noDrainerStarts = (x: Connected) => fs.writeFileSync(drainerPid(x), String(process.pid));
const outboxTypes = (x: Connected): string[] =>
  JSON.parse(fs.readFileSync(path.join(x.root, "state", `${S}.json`), "utf8")).outbox.map((e: any) => e.type);
const spool = (x: Connected) => fs.readdirSync(path.join(x.root, "spool"));

/** Connected through a proxy that is then cut; one turn queued; a drainer run until it leaves. */
async function turnWhileUnreachable(prompt: string) {
  proxy = await tcpProxy(server.url);
  c = await connectClaude(proxy.url, ws);
  proxy.cut();
  noDrainerStarts(c);
  await callHook(c, "UserPromptSubmit", { session_id: S, prompt });
  await callHook(c, "PreToolUse", { session_id: S, tool_name: "Bash", tool_input: { command: "make" } });
  expect(spool(c)).toHaveLength(2);
  expect(fs.existsSync(path.join(c.root, "drainer.log"))).toBe(false); // the hook started none
  const lines: string[] = [];
  const left = await runDrainer(c.root, { idleMs: 100, staleMs: 1000, log: (l) => lines.push(l) });
  return { left, lines, connected: c, cut: proxy };
}

describe("chips connect drain: leaving while Chips is unreachable", () => {
  it("a drainer that cannot reach Chips leaves after staleMs; the queue is applied and its events stay in the outbox", async () => {
    const { left, lines, connected } = await turnWhileUnreachable("Offline turn");
    expect(left).toBe("exited");
    expect(spool(connected)).toEqual([]);
    expect(fs.existsSync(drainerPid(connected))).toBe(false);
    expect(outboxTypes(connected)).toEqual(["run.started", "run.status"]);
    expect(lines.some((l) => l.startsWith("leaving with events unsent"))).toBe(true);
  });

  it("what it left, and what hooks queued with no drainer running, the next hook's drainer sends: in order, once", async () => {
    const { connected, cut } = await turnWhileUnreachable("Sent later");
    // No drainer runs now; these wait in the spool.
    noDrainerStarts(connected);
    await callHook(connected, "PreToolUse", { session_id: S, tool_name: "Read", tool_input: { file_path: "/a.ts" } });
    await callHook(connected, "Stop", { session_id: S, stop_hook_active: false, last_assistant_message: "Done." });
    expect(spool(connected)).toHaveLength(2);
    cut.restore();
    fs.rmSync(drainerPid(connected));
    // The next hook call (a new session's prompt) starts a drainer: `chips connect drain`.
    await callHook(connected, "UserPromptSubmit", { session_id: `${S.slice(0, -1)}2`, prompt: "Next" });
    await waitForRun(server.url, ws, "Next");
    // It runs from "/": removing the project under a starting drainer once hung it for good.
    const pid = fs.readFileSync(drainerPid(connected), "utf8");
    expect(fs.readlinkSync(`/proc/${pid}/cwd`)).toBe("/");
    const runId = await waitForRun(server.url, ws, "Sent later");
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "run.finished");
    const events = await runEvents(server.url, ws, runId);
    expect(events.map((e: any) => e.type)).toEqual([
      "run.started",
      "run.status",
      "run.status",
      "message.posted",
      "run.finished",
    ]);
    expect(events.filter((e: any) => e.type === "run.status").map((e: any) => e.verb_phrase)).toEqual([
      "Running make…",
      "Reading a.ts…",
    ]);
    const all = await readEvents(server, ws);
    expect(new Set(all.map((e: any) => e.idempotency_key)).size).toBe(all.length);
  });
});

/** Whether a process runs (a zombie nobody reaped yet has left). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

describe("[CON1] one drainer per connection", () => {
  it("[CON1] a turn's hook calls, each before the drainer has started, start one drainer, not one each", async () => {
    c = await connectClaude(server.url, ws);
    // Node as the hook starts it, behind a script that notes each drainer it starts (its pid: exec keeps it).
    const starts = path.join(c.root, "drainer-starts");
    const counting = path.join(c.root, "counting-node.sh");
    fs.writeFileSync(
      counting,
      `#!/bin/sh\ncase "$*" in *" connect drain "*) echo $$ >>'${starts}' ;; esac\nexec '${process.execPath}' "$@"\n`,
      { mode: 0o700 },
    );
    const hook = path.join(c.root, "hook.sh");
    fs.writeFileSync(hook, fs.readFileSync(hook, "utf8").replace(/^N=.*$/m, `N='${counting}'`));
    // One turn as Claude Code calls it, one hook after another: quicker than Node starts a drainer.
    await callHook(c, "UserPromptSubmit", { session_id: S, prompt: "One drainer" });
    for (const command of ["make", "make test"]) {
      await callHook(c, "PreToolUse", { session_id: S, tool_name: "Bash", tool_input: { command } });
      await callHook(c, "PostToolUse", { session_id: S, tool_name: "Bash", tool_input: { command } });
    }
    await callHook(c, "Stop", { session_id: S, stop_hook_active: false, last_assistant_message: "Done." });
    const runId = await waitForRun(server.url, ws, "One drainer");
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "run.finished");
    const started = fs.readFileSync(starts, "utf8").trim().split("\n").map(Number);
    expect(started).toHaveLength(1);
    expect(fs.readFileSync(drainerPid(c), "utf8")).toBe(String(started[0]));
    expect(alive(started[0])).toBe(true);
  });
});

describe("[CON2] a drainer that cannot reach Chips leaves after its stale time", () => {
  it("[CON2] even while hooks keep coming: it leaves after --stale-seconds with the events in the outbox; the next drainer sends them, in order, once", async () => {
    proxy = await tcpProxy(server.url);
    c = await connectClaude(proxy.url, ws, ["--stale-seconds", "2"]);
    proxy.cut();
    await callHook(c, "UserPromptSubmit", { session_id: S, prompt: "Through an outage" });
    await until(() => fs.existsSync(drainerPid(c!)), "the hook to start a drainer");
    const first = Number(fs.readFileSync(drainerPid(c), "utf8"));
    const t0 = performance.now();
    // The session goes on while Chips is away: one tool call after another until that drainer
    // has left, each once the drainer has taken the one before (a session's tempo: a flood of
    // calls as fast as a shell can start grew the outbox to thousands and the test past its time).
    const commands: string[] = [];
    while (alive(first) && performance.now() - t0 < 30_000) {
      const command = `step ${commands.length}`;
      await callHook(c, "PreToolUse", { session_id: S, tool_name: "Bash", tool_input: { command } });
      commands.push(command);
      await until(() => spool(c!).length === 0 || !alive(first), "the drainer to take the tool call");
    }
    expect(alive(first)).toBe(false);
    const log = fs.readFileSync(path.join(c.root, "drainer.log"), "utf8");
    expect(log).toMatch(/leaving with events unsent/);
    // Chips is back: the drainer the hooks start now (or started meanwhile) sends everything.
    proxy.restore();
    await callHook(c, "Stop", { session_id: S, stop_hook_active: false, last_assistant_message: "Done." });
    const runId = await waitForRun(server.url, ws, "Through an outage");
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "run.finished");
    const events = await runEvents(server.url, ws, runId);
    expect(events.filter((e: any) => e.type === "run.status").map((e: any) => e.verb_phrase)).toEqual(
      commands.map((cmd) => `Running ${cmd}…`),
    );
    const all = await readEvents(server, ws);
    expect(new Set(all.map((e: any) => e.idempotency_key)).size).toBe(all.length);
  });
});

describe("chips disconnect claude while its drainer still idles", () => {
  it("stops the drainer, then removes the token and queue: no race with its writes (ENOTEMPTY)", async () => {
    c = await connectClaude(server.url, ws);
    await callHook(c, "UserPromptSubmit", { session_id: S, prompt: "Then disconnect" });
    await callHook(c, "Stop", { session_id: S, stop_hook_active: false, last_assistant_message: "Done." });
    const runId = await waitForRun(server.url, ws, "Then disconnect");
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "run.finished");
    // Stored is not yet acknowledged: the drainer takes an event out of its outbox only after the
    // answer, and disconnect keeps the queue while anything is owed (its other answer).
    await until(() => spool(c!).length === 0 && outboxTypes(c!).length === 0, "the drainer to record all as sent");
    const pid = Number(fs.readFileSync(drainerPid(c), "utf8"));
    expect(alive(pid)).toBe(true); // idling: it leaves only after its idle time
    let out = "";
    const io = { out: (s: string) => void (out += s), err: (s: string) => void (out += s) };
    const code = await runCli(["disconnect", "claude", "--settings", c.settings], { env: c.env, io });
    expect(code, out).toBe(0);
    expect(out).toMatch(/are removed/);
    expect(fs.existsSync(c.root)).toBe(false);
    await until(() => !alive(pid), "the drainer to have stopped");
  });
});
