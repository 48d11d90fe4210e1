import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/protocol";
import { backoffMs, ChipsClient, ChipsError, DEFAULT_RETRY, parseRetryAfter, type Command, type CommandControls, type EventInput } from "../lib/sdk";
import { newHarness, newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { command, receipts } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
afterAll(() => server?.close());

const FAST = { attempts: 8, baseMs: 5, maxMs: 50, totalMs: 20_000 };
const clients: ChipsClient[] = [];
afterAll(() => clients.forEach((c) => c.close()));

function sdk(ws: Workspace, url = server.url, token = ws.token) {
  const c = new ChipsClient({ url, token, retry: FAST });
  clients.push(c);
  return c;
}

const getRun = async (runId: string, ws: Workspace) => (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
const msg = (ws: Workspace, text: string): EventInput => ({ type: "message.posted", space_id: ws.space_id, text });

// ---- a forwarding HTTP proxy that can lose answers, and a TCP proxy that can cut ----

interface Proxy {
  url: string;
  stats: { requests: number; forwarded: number; dropped: number; refused: number; retried: number };
  close(): Promise<void>;
}

const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

/**
 * Forwards each request to the server. `plan(n, seen)` decides the fate of the n-th POST,
 * `seen` being how often this exact body came before (0 on a first try): `forward`;
 * `drop` — forward, wait for the server's whole answer (so it committed), then destroy
 * the client's socket instead of answering; or `[status, retryAfter]` — answer that status
 * at once without forwarding (so nothing was stored).
 */
async function httpProxy(target: string, plan: (n: number, seen: number) => "forward" | "drop" | [number, string]): Promise<Proxy> {
  const stats = { requests: 0, forwarded: 0, dropped: 0, refused: 0, retried: 0 };
  const bodies = new Map<string, number>();
  let posts = 0;
  const agent = new http.Agent({ keepAlive: true });
  const srv = http.createServer((req, res) => {
    stats.requests++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const seen = bodies.get(body) ?? 0;
      bodies.set(body, seen + 1);
      if (req.method === "POST" && seen > 0) stats.retried++;
      const fate = req.method === "POST" ? plan(++posts, seen) : "forward";
      if (Array.isArray(fate)) {
        stats.refused++;
        res.writeHead(fate[0], { "content-type": "application/problem+json", "retry-after": fate[1] });
        res.end(JSON.stringify({ status: fate[0], code: fate[0] === 429 ? "rate_limited" : "overloaded", detail: "proxy says wait" }));
        return;
      }
      const headers = { ...req.headers };
      delete headers.host;
      const up = http.request(target + req.url, { method: req.method, headers, agent }, (upRes) => {
        const out: Buffer[] = [];
        upRes.on("data", (c: Buffer) => out.push(c));
        upRes.on("end", () => {
          stats.forwarded++;
          if (fate === "drop") {
            stats.dropped++;
            req.socket.destroy(); // the server committed; the client never hears of it
            return;
          }
          const body = Buffer.concat(out);
          const h: http.OutgoingHttpHeaders = {};
          for (const [k, v] of Object.entries(upRes.headers)) if (!HOP.has(k) && v !== undefined) h[k] = v;
          h["content-length"] = body.length;
          res.writeHead(upRes.statusCode!, h);
          res.end(body);
        });
      });
      up.on("error", () => req.socket.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        agent.destroy();
        srv.close(() => r());
      }),
  };
}

/** A TCP forwarder to the server that can be cut (every connection dropped, new ones refused) and restored. */
async function tcpProxy(target: string) {
  const { hostname, port } = new URL(target);
  let open = true;
  const conns = new Set<net.Socket>();
  const srv = net.createServer((c) => {
    if (!open) return void c.destroy();
    const up = net.connect(Number(port), hostname);
    conns.add(c).add(up);
    const end = () => {
      c.destroy();
      up.destroy();
      conns.delete(c);
      conns.delete(up);
    };
    c.on("error", end).on("close", end);
    up.on("error", end).on("close", end);
    c.pipe(up).pipe(c);
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`,
    cut() {
      open = false;
      for (const s of conns) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((r) => {
        srv.close(() => r());
        for (const s of conns) s.destroy();
      }),
  };
}

// ---- posting ----

describe("SDK: posting events", () => {
  it("whoami fills the workspace and the harness; post fills v, id, key and actor and answers the stored event", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const me = await client.whoami();
    expect(me).toMatchObject({ kind: "harness", id: ws.harness_id, workspace_id: ws.workspace_id });
    expect(me.spaces?.[0].id).toBe(ws.space_id);
    expect(client.workspaceId).toBe(ws.workspace_id);
    expect(client.harnessId).toBe(ws.harness_id);

    const stored = await client.post(msg(ws, "Hello from the SDK"));
    expect(stored).toMatchObject({ v: 1, type: "message.posted", workspace_id: ws.workspace_id, actor: { kind: "harness", id: ws.harness_id }, text: "Hello from the SDK" });
    expect(stored.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(stored.idempotency_key).toMatch(/^sdk-[0-9A-Z]{26}$/);
    expect(stored.seq).toBeGreaterThan(0);
  });

  it("learns who it is on the first post when whoami was not called; keeps an id and key it is given", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const id = newId("event");
    const stored = await client.post({ ...msg(ws, "given"), id, idempotency_key: "my-key-1" });
    expect(stored).toMatchObject({ id, idempotency_key: "my-key-1", workspace_id: ws.workspace_id });
    // The same event again is a replay: the event stored the first time.
    const again = await client.post({ ...msg(ws, "given"), id, idempotency_key: "my-key-1" });
    expect(again).toEqual(stored);
  });

  it("a 4xx other than 429 throws a ChipsError with code, status, detail and errors, at once", async () => {
    const ws = await newWorkspace(server);
    let calls = 0;
    const client = new ChipsClient({
      url: server.url,
      token: ws.token,
      retry: FAST,
      fetch: (...a) => {
        calls++;
        return fetch(...a);
      },
    });
    await client.whoami();
    calls = 0;
    const err = await client.post({ type: "run.status", run_id: newId("run"), phase: "x", verb_phrase: "y", progress: 7 }).catch((e) => e);
    expect(err).toBeInstanceOf(ChipsError);
    expect(err).toMatchObject({ code: "validation_failed", status: 422 });
    expect(err.errors.some((e: { pointer: string }) => e.pointer === "/progress")).toBe(true);
    expect(calls).toBe(1);
    const bad = new ChipsClient({ url: server.url, token: "not-a-token", retry: FAST });
    expect(await bad.whoami().catch((e) => e)).toMatchObject({ code: "unauthorized", status: 401 });
  });

  it("post(array) is one all-or-nothing request; batch() queues, flushes in order, keeps what failed for a retry", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const two = await client.post([msg(ws, "one"), msg(ws, "two")]);
    expect(two.map((e) => (e as { text: string }).text)).toEqual(["one", "two"]);
    expect(two[1].seq).toBe(two[0].seq + 1);

    const b = client.batch();
    b.add(msg(ws, "a")).add({ type: "run.status", run_id: newId("run"), phase: "p", verb_phrase: "v", progress: 2 }).add(msg(ws, "c"));
    const before = (await readEvents(server, ws)).length;
    const err = await b.flush().catch((e) => e);
    expect(err).toMatchObject({ code: "validation_failed", status: 422 });
    expect(err.errors[0].pointer).toMatch(/^\/events\/1\//);
    expect((await readEvents(server, ws)).length).toBe(before); // nothing stored
    expect(b.size).toBe(3);

    const ok = client.batch();
    for (let i = 0; i < 3; i++) ok.add(msg(ws, `m${i}`));
    const stored = await ok.flush();
    expect(stored.map((e) => (e as { text: string }).text)).toEqual(["m0", "m1", "m2"]);
    expect(ok.size).toBe(0);
  });

  it("a batch of more than 500 goes as requests of at most 500, in order", async () => {
    const ws = await newWorkspace(server);
    const sizes: number[] = [];
    const client = new ChipsClient({
      url: server.url,
      token: ws.token,
      retry: FAST,
      fetch: (input, init) => {
        if (init?.method === "POST") sizes.push(JSON.parse(String(init.body)).events.length);
        return fetch(input, init);
      },
    });
    const b = client.batch();
    for (let i = 0; i < 620; i++) b.add(msg(ws, `n${i}`));
    const stored = await b.flush();
    expect(sizes).toEqual([500, 120]);
    expect(stored).toHaveLength(620);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => stored[0].seq + i));
    await expect(client.post(Array.from({ length: 501 }, (_, i) => msg(ws, `x${i}`)))).rejects.toMatchObject({ code: "payload_too_large" });
  });
});

describe("SDK: retries", () => {
  it("backoff is full jitter under a capped exponential; Retry-After reads seconds and HTTP dates", () => {
    const p = { ...DEFAULT_RETRY, baseMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffMs(n, p, () => 0.999999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffMs(5, p, () => 0)).toBe(0);
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:03 GMT", now)).toBe(3000);
  });

  it("[ENV9] under a real forwarding proxy on 127.0.0.1 that drops answers after the server committed, every event is stored exactly once", async () => {
    const ws = await newWorkspace(server);
    // Every 3rd POST: forwarded, committed, then the answer is lost; every 7th: a 503 before
    // the server sees it — the same event at most twice, so some retries fail again but none runs out.
    const proxy = await httpProxy(server.url, (n, seen) => (seen >= 2 ? "forward" : n % 7 === 0 ? [503, "0"] : n % 3 === 0 ? "drop" : "forward"));
    try {
      const client = sdk(ws, proxy.url);
      await client.whoami();
      const sent: string[] = [];
      const answered = new Map<string, number>();
      const one = async (text: string) => {
        const e = { ...msg(ws, text), id: newId("event") };
        sent.push(e.id);
        const stored = await client.post(e);
        answered.set(stored.id, stored.seq);
      };
      // 70 single posts from 7 concurrent writers, and 3 batches of 10.
      const writers = Array.from({ length: 7 }, async (_, w) => {
        for (let i = 0; i < 10; i++) await one(`w${w}-${i}`);
      });
      const batches = Array.from({ length: 3 }, async (_, k) => {
        const events = Array.from({ length: 10 }, (_, i) => ({ ...msg(ws, `b${k}-${i}`), id: newId("event") }));
        sent.push(...events.map((e) => e.id));
        for (const s of await client.post(events)) answered.set(s.id, s.seq);
      });
      await Promise.all([...writers, ...batches]);

      expect(proxy.stats.dropped).toBeGreaterThan(5);
      expect(proxy.stats.retried).toBeGreaterThanOrEqual(proxy.stats.dropped + proxy.stats.refused); // every failure was retried, same body
      expect(proxy.stats.refused).toBeGreaterThan(2);
      expect(sent).toHaveLength(100);
      // Acknowledged to the caller: every event, with the seq it was stored under.
      expect(new Set(answered.keys())).toEqual(new Set(sent));

      const stored = await readEvents(server, ws);
      const mine = stored.filter((e) => sent.includes(e.id));
      expect(mine).toHaveLength(100); // each id exactly once
      expect(new Set(mine.map((e) => e.id)).size).toBe(100);
      for (const e of mine) expect(answered.get(e.id)).toBe(e.seq);
      const seqs = stored.map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i)); // gap-free
    } finally {
      await proxy.close();
    }
  });

  it("honors Retry-After on a 429, then succeeds with the same event", async () => {
    const ws = await newWorkspace(server);
    const proxy = await httpProxy(server.url, (n) => (n === 1 ? [429, "1"] : "forward"));
    try {
      const client = sdk(ws, proxy.url);
      await client.whoami();
      const t0 = Date.now();
      const stored = await client.post(msg(ws, "patient"));
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
      expect(proxy.stats.refused).toBe(1);
      expect((await readEvents(server, ws)).filter((e) => e.id === stored.id)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("[HTTP2] against the server's own rate limiter: 429 with Retry-After is waited out, every event stored once", async () => {
    const limited = await startTestServer({ rateLimit: 10, rateBurst: 10 });
    try {
      const ws = await newWorkspace(limited);
      let tooMany = 0;
      const client = new ChipsClient({
        url: limited.url,
        token: ws.token,
        retry: { attempts: 10, baseMs: 5, maxMs: 50, totalMs: 30_000 },
        fetch: async (...a) => {
          const res = await fetch(...a);
          if (res.status === 429) {
            tooMany++;
            expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
          }
          return res;
        },
      });
      await client.whoami();
      // Four batches of 10 at once against a bucket of 10 refilling at 10/s.
      const batches = Array.from({ length: 4 }, (_, k) => Array.from({ length: 10 }, (_, i) => ({ ...msg(ws, `r${k}-${i}`), id: newId("event") })));
      const t0 = Date.now();
      const stored = await Promise.all(batches.map((b) => client.post(b)));
      expect(tooMany).toBeGreaterThan(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1000); // Retry-After (≥ 1 s) was honored
      expect(stored.flat().map((e) => e.id)).toEqual(batches.flat().map((e) => e.id));
      const ids = new Set(batches.flat().map((e) => e.id));
      expect((await readEvents(limited, ws)).filter((e) => ids.has(e.id))).toHaveLength(40);
    } finally {
      await limited.close();
    }
  });

  it("gives up after the attempts with the last error (503 overloaded)", async () => {
    const ws = await newWorkspace(server);
    const proxy = await httpProxy(server.url, () => [503, "0"]);
    try {
      const client = new ChipsClient({ url: proxy.url, token: ws.token, retry: { attempts: 4, baseMs: 1, maxMs: 5 } });
      await client.whoami();
      const err = await client.post(msg(ws, "never")).catch((e) => e);
      expect(err).toBeInstanceOf(ChipsError);
      expect(err).toMatchObject({ code: "overloaded", status: 503 });
      expect(proxy.stats.refused).toBe(4);
    } finally {
      await proxy.close();
    }
  });
});

// ---- runs and commands ----

describe("SDK: runs", () => {
  it("[RUN1] startRun → status, step, message, finish: the run as the room draws it", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const run = await client.startRun({
      spaceId: ws.space_id,
      goal: "Fix the flaky test",
      plan: [
        { step_id: "read", title: "Read the test" },
        { step_id: "fix", title: "Fix it" },
      ],
      sessionRef: "term-1",
    });
    expect(run.runId).toMatch(/^run_/);
    expect(run.started).toMatchObject({ type: "run.started", goal: "Fix the flaky test", session_ref: "term-1" });
    await run.step("read", "active");
    await run.status({ phase: "reading", verbPhrase: "Reading the test…", progress: 0.25, estimateSeconds: 30, usage: { input_tokens: 10, output_tokens: 2 } });
    await run.message("Found it: a race in the setup.");
    await run.step("read", "done", { note: "read" });
    await run.step("extra", "done", { title: "An extra step" });
    const fin = await run.finish("succeeded", { summary: "Fixed." });
    expect(fin).toMatchObject({ type: "run.finished", outcome: "succeeded" });
    const model = await getRun(run.runId, ws);
    expect(model).toMatchObject({ state: "finished", outcome: "succeeded", summary: "Fixed.", session_ref: "term-1" });
    expect(model.plan.map((s: { step_id: string; state: string }) => [s.step_id, s.state])).toEqual([
      ["read", "done"],
      ["fix", "pending"],
      ["extra", "done"],
    ]);
    const events = (await readEvents(server, ws)).filter((e) => e.run_id === run.runId);
    expect(events.map((e) => e.type)).toEqual(["run.started", "run.step", "run.status", "message.posted", "run.step", "run.step", "run.finished"]);
  });
});

describe("SDK: commands", () => {
  it("[RUN1] onCommand gets a pause; apply() → the run is paused; resume → running", async () => {
    const ws = await newWorkspace(server);
    const client = sdk(ws);
    const got: Command[] = [];
    const controls = new Map<string, CommandControls>();
    const sub = client.onCommand((c, ctl) => {
      got.push(c);
      controls.set(c.command_id, ctl);
    });
    await sub.ready();
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Pause me" });
    const pause = await command(server, ws, run.runId, "pause");
    expect(pause.status).toBe(201);
    await until(() => got.some((c) => c.command_id === pause.body.command_id), "the SDK got the pause");
    expect(got[0]).toMatchObject({ type: "run.command", command: "pause", run_id: run.runId });
    await until(async () => (await receipts(server, ws, run.runId)).commands[0].receipt === "delivered", "delivered on the socket ack");
    const acked = await controls.get(pause.body.command_id)!.apply();
    expect(acked).toMatchObject({ type: "run.command_acked", result: "applied", command_id: pause.body.command_id });
    expect(await controls.get(pause.body.command_id)!.apply()).toEqual(acked); // same answer again
    expect(await getRun(run.runId, ws)).toMatchObject({ state: "paused", pending: null });
    await expect(run.status({ phase: "x", verbPhrase: "y" })).rejects.toMatchObject({ code: "run_paused", status: 409 });

    const resume = await command(server, ws, run.runId, "resume");
    await until(() => controls.has(resume.body.command_id), "the SDK got the resume");
    await controls.get(resume.body.command_id)!.apply();
    expect((await getRun(run.runId, ws)).state).toBe("running");
    sub.close();
  });

  it("[RT3] a command sent while the SDK is disconnected arrives after it reconnects by itself; a resend is not handled twice", async () => {
    const ws = await newWorkspace(server);
    const proxy = await tcpProxy(server.url);
    try {
      const client = sdk(ws, proxy.url);
      const got: Command[] = [];
      const controls = new Map<string, CommandControls>();
      const sub = client.onCommand(
        (c, ctl) => {
          got.push(c);
          controls.set(c.command_id, ctl);
        },
        { reconnectDelayMs: 50, reconnectDelayMaxMs: 200 },
      );
      await sub.ready();
      const run = await client.startRun({ spaceId: ws.space_id, goal: "Stay reachable" });

      // Away: the command waits, accepted, on the server.
      proxy.cut();
      await until(() => !sub.connected, "the SDK noticed it is disconnected");
      const steer = await command(server, ws, run.runId, "steer", "look at the logs first");
      expect(steer.status).toBe(201);
      expect((await receipts(server, ws, run.runId)).commands[0].receipt).toBe("accepted");
      proxy.restore();
      await until(() => got.some((c) => c.command_id === steer.body.command_id), "delivered after the reconnect", 15_000);
      expect(got[0]).toMatchObject({ command: "steer", text: "look at the logs first" });
      await until(async () => (await receipts(server, ws, run.runId)).commands[0].receipt === "delivered", "delivered");

      // Not acked yet: every reconnect sends it again; the handler still sees it once.
      const dupsBefore = sub.duplicates;
      proxy.cut();
      await until(() => !sub.connected, "disconnected again");
      proxy.restore();
      await until(() => sub.duplicates > dupsBefore, "the server resent the unacked command", 15_000);
      expect(got.filter((c) => c.command_id === steer.body.command_id)).toHaveLength(1);

      await controls.get(steer.body.command_id)!.apply();
      expect((await receipts(server, ws, run.runId)).commands[0]).toMatchObject({ receipt: "applied" });
      sub.close();
    } finally {
      await proxy.close();
    }
  });

  it("[RT3] pollCommands: a harness without sockets gets its commands by polling, each once, and acks them", async () => {
    const ws = await newWorkspace(server);
    const h = await newHarness(server, ws, "poller");
    const pws = { ...ws, token: h.token, harness_id: h.harness_id };
    const client = sdk(pws);
    const run = await client.startRun({ spaceId: ws.space_id, goal: "Poll" });
    const got: Command[] = [];
    const sub = client.pollCommands(
      async (c, { apply, reject }) => {
        got.push(c);
        if (c.command === "pause") await apply();
        else await reject("not now");
      },
      { intervalMs: 50 },
    );
    await sub.ready();
    const pause = await command(server, pws, run.runId, "pause");
    await until(async () => (await getRun(run.runId, pws)).state === "paused", "paused by the poller's ack");
    const steer = await command(server, pws, run.runId, "steer", "skip the docs");
    await until(async () => (await receipts(server, pws, run.runId)).commands[1]?.receipt === "rejected", "steer rejected");
    expect((await receipts(server, pws, run.runId)).commands.map((c: { receipt: string; reason: string }) => [c.receipt, c.reason])).toEqual([
      ["applied", null],
      ["rejected", "not now"],
    ]);
    expect(got.map((c) => c.command_id)).toEqual([pause.body.command_id, steer.body.command_id]);
    expect(sub.after).toBeGreaterThan(0);
    sub.close();
  });

  it("a person's token is refused on /harness: ready() rejects with unauthorized", async () => {
    const ws = await newWorkspace(server);
    const client = new ChipsClient({ url: server.url, token: ws.person_token });
    clients.push(client);
    const sub = client.onCommand(() => {}, { onError: () => {} });
    await expect(sub.ready()).rejects.toMatchObject({ code: "unauthorized" });
  });
});
