import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { io } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChipsClient, type AskOutcome } from "../lib/agents/sdk";
import { newWorkspace, readEvents, request, startRun, type Workspace } from "./support/api";
import { answer, ask, permission } from "./support/asks";
import { until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
const clients: ChipsClient[] = [];
const procs: ChildProcess[] = [];
afterAll(async () => {
  clients.forEach((c) => c.close());
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await server?.close();
});

const FAST = { attempts: 8, baseMs: 5, maxMs: 50, totalMs: 20_000 };

/** A client; `noPolls` holds every ask long-poll unanswered, so only the socket's push can settle an ask. */
function sdk(ws: Workspace, opts: { noPolls?: boolean } = {}) {
  const polls: string[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    const url = String(input);
    if (/\/asks\/ask_[^/]+\?wait=/.test(url)) {
      polls.push(url);
      if (opts.noPolls)
        return new Promise((_, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true }),
        );
    }
    return fetch(input, init);
  };
  const c = new ChipsClient({ url: server.url, token: ws.token, retry: FAST, fetch: fetchFn });
  clients.push(c);
  return { client: c, polls };
}

const asksOf = async (ws: Workspace, runId: string) =>
  (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token: ws.token })).body.asks as any[];
const openAsk = async (ws: Workspace, runId: string) => {
  await until(async () => (await asksOf(ws, runId)).some((a) => a.state === "asked"), "the ask is stored");
  return (await asksOf(ws, runId)).find((a) => a.state === "asked")!;
};

describe("SDK: ask() ([ASK1]–[ASK6])", () => {
  it("[ASK4] ask() resolves with the person's answer pushed on the /harness socket; apply() reports it applied", async () => {
    const ws = await newWorkspace(server);
    const { client, polls } = sdk(ws, { noPolls: true });
    const sub = client.onCommand(() => {});
    await sub.ready();
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Clean up" });
    const pending = run.ask({ kind: "permission", tool: "Bash", summary: "rm -rf build/", command: "rm -rf build/" });
    const a = await openAsk(ws, run.runId);
    expect(a.request).toMatchObject({ kind: "permission", tool: "Bash", source: "sdk" });
    const given = await answer(server, run.runId, a.ask_id, { decision: "allow_for_run" }, { token: ws.person_token });
    const o = (await pending) as Extract<AskOutcome, { kind: "answered" }>;
    expect(o).toMatchObject({
      kind: "answered",
      askId: a.ask_id,
      answer: { decision: "allow_for_run", scope: "Bash", person_id: ws.person_id, seq: given.body.seq },
    });
    expect(polls.length).toBeGreaterThan(0); // it long-polled too, held here: the push settled it
    const applied = await o.apply();
    expect(applied).toMatchObject({ type: "run.answer_applied", ask_id: a.ask_id, result: "applied" });
    expect((await asksOf(ws, run.runId))[0]).toMatchObject({ state: "applied", settled_seq: applied.seq });
  });

  it("[ASK4] without a socket, ask() long-polls: a question answered by text", async () => {
    const ws = await newWorkspace(server);
    const { client } = sdk(ws);
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Pick a database" });
    const pending = run.ask({
      kind: "question",
      question: "Which one?",
      options: [{ id: "pg", label: "PostgreSQL" }],
      freeText: true,
    });
    const a = await openAsk(ws, run.runId);
    await answer(server, run.runId, a.ask_id, { text: "PGlite for now" }, { token: ws.person_token });
    const o = await pending;
    expect(o).toMatchObject({ kind: "answered", answer: { text: "PGlite for now", option_id: null } });
    if (o.kind === "answered") await o.reject("the question was moot by then");
    expect((await asksOf(ws, run.runId))[0]).toMatchObject({
      state: "rejected",
      reason: "the question was moot by then",
    });
  });

  it("[ASK6] an ask nobody answers in time closes expired with the safe default, once", async () => {
    const ws = await newWorkspace(server);
    const { client } = sdk(ws);
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Wait for nobody" });
    const o = await run.ask({ kind: "permission", tool: "Edit", summary: "Edit .env", expiresInSeconds: 1 });
    expect(o).toMatchObject({ kind: "closed", reason: "expired", appliedDefault: "deny" });
    const closes = (await readEvents(server, ws)).filter((e) => e.type === "run.ask_closed" && e.ask_id === o.askId);
    expect(closes).toHaveLength(1);
    expect((await asksOf(ws, run.runId))[0]).toMatchObject({ state: "closed", closed_reason: "expired" });
  });

  it("[ASK8] an ask left to the agent's own default closes expired without saying deny applied", async () => {
    const ws = await newWorkspace(server);
    const { client } = sdk(ws);
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Wait, then decide myself" });
    const o = await run.ask({
      kind: "permission",
      tool: "Edit",
      summary: "Edit .env",
      expiresInSeconds: 1,
      ifUnanswered: "agent_default",
    });
    expect(o).toMatchObject({ kind: "closed", reason: "expired", appliedDefault: null });
    expect((await asksOf(ws, run.runId))[0]).toMatchObject({
      request: { if_unanswered: "agent_default" },
      closed_reason: "expired",
      applied_default: null,
    });
  });

  it("[ASK4] an ask withdrawn through its signal closes cancelled", async () => {
    const ws = await newWorkspace(server);
    const { client } = sdk(ws);
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Change my mind" });
    const withdraw = new AbortController();
    const pending = run.ask({ kind: "permission", tool: "Bash", summary: "make deploy" }, { signal: withdraw.signal });
    await openAsk(ws, run.runId);
    withdraw.abort();
    expect(await pending).toMatchObject({ kind: "closed", reason: "cancelled" });
    expect((await asksOf(ws, run.runId))[0]).toMatchObject({ state: "closed", closed_reason: "cancelled" });
  });

  it("[ASK4] an answer given while the harness was away is sent when it connects, until it is reported", async () => {
    const ws = await newWorkspace(server);
    const runId = await startRun(server, ws);
    const askId = await ask(server, ws, permission(ws, runId));
    await answer(server, runId, askId, { decision: "deny", note: "not today" }, { token: ws.person_token });
    const got: any[] = [];
    const s = io(`${server.url}/harness`, { transports: ["websocket"], auth: { token: ws.token }, forceNew: true });
    s.on("answer", (f: any) => got.push(f));
    await until(() => got.length === 1, "the answer on connect");
    expect(got[0]).toMatchObject({ type: "run.answered", ask_id: askId, decision: "deny", note: "not today" });
    s.disconnect();
  });
});

describe("chips demo --ask", () => {
  it("[ASK1][ASK4] the demo asks the room halfway, waits, says what the answer made it do and reports it applied", async () => {
    const ws = await newWorkspace(server);
    const ROOT = path.resolve(import.meta.dirname, "..");
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith("CHIPS_") || k === "DATABASE_URL") delete env[k];
    const proc = spawn(
      process.execPath,
      [
        path.join(ROOT, "bin", "chips.mjs"),
        "demo",
        "--url",
        server.url,
        "--token",
        ws.token,
        "--steps",
        "2",
        "--step-ms",
        "40",
        "--ask",
      ],
      { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    procs.push(proc);
    let out = "";
    proc.stdout!.setEncoding("utf8").on("data", (d) => (out += d));
    const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
    await until(() => /^demo: run (run_\w+)/.test(out), "the demo's first line", 60_000);
    const runId = /^demo: run (run_\w+)/.exec(out)![1];
    const a = await openAsk(ws, runId);
    expect(a.request).toMatchObject({ kind: "permission", tool: "Bash", source: "demo", expires_in_seconds: 300 });
    expect((await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body.asks_open).toBe(1);
    await answer(server, runId, a.ask_id, { decision: "allow" }, { token: ws.person_token });
    expect(await exited).toBe(0);
    expect(out).toContain("demo: answered allow: Permission granted");
    const events = (await readEvents(server, ws)).filter((e) => e.run_id === runId);
    const types = events.map((e) => e.type);
    expect(types.indexOf("run.answer_applied")).toBeGreaterThan(types.indexOf("run.answered"));
    expect(events.find((e) => e.type === "message.posted" && e.text.startsWith("Permission granted"))).toBeDefined();
    expect(events.at(-1)).toMatchObject({ type: "run.finished", outcome: "succeeded" });
    expect((await asksOf(ws, runId))[0].state).toBe("applied");
  });
});
