import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runDrainer } from "../lib/agents/connect/claude/drainer";
import { newWorkspace, readEvents, type Workspace } from "./support/api";
import { callHook, connectClaude, runEvents, waitForRun, type Connected } from "./support/claude-connect";
import { until } from "./support/feed";
import { tcpProxy } from "./support/proxies";
import { startTestServer, type TestServer } from "./support/server";

/**
 * When the drainer of `chips connect claude` leaves. It used to retry for as long as Chips
 * stayed away, so every connection whose Chips went (a test server closed, a laptop off the
 * network) kept a process alive. It now leaves after `staleMs` without a hook call even
 * then: the outbox is on disk, and the next hook call starts a drainer that sends it.
 * Real drainers (one in this process, with short times; one the hook script starts), real
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
