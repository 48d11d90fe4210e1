import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpProxy } from "./support/proxies";
import { newId } from "../lib/core/protocol";
import { backoffMs, ChipsClient, ChipsError, DEFAULT_RETRY, parseRetryAfter, type EventInput } from "../lib/agents/sdk";
import { newWorkspace, readEvents, type Workspace } from "./support/api";
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

const msg = (ws: Workspace, text: string): EventInput => ({ type: "message.posted", space_id: ws.space_id, text });

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
    expect(stored).toMatchObject({
      v: 1,
      type: "message.posted",
      workspace_id: ws.workspace_id,
      actor: { kind: "harness", id: ws.harness_id },
      text: "Hello from the SDK",
    });
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

  it("[HTTP4] text the server would refuse (U+0000, half a surrogate pair) is sent as U+FFFD: the event is stored", async () => {
    const ws = await newWorkspace(server);
    const stored = await sdk(ws).post({
      ...msg(ws, "out: a\u0000b \ud83d, \udc00 and a whole 😀"),
      idempotency_key: "key-\u0000",
    });
    expect((stored as { text?: string }).text).toBe("out: a\ufffdb \ufffd, \ufffd and a whole 😀");
    expect(stored.idempotency_key).toBe("key-\ufffd");
    expect((await readEvents(server, ws)).map((e) => e.seq)).toContain(stored.seq);
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
    const err = await client
      .post({ type: "run.status", run_id: newId("run"), phase: "x", verb_phrase: "y", progress: 7 })
      .catch((e) => e);
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
    b.add(msg(ws, "a"))
      .add({ type: "run.status", run_id: newId("run"), phase: "p", verb_phrase: "v", progress: 2 })
      .add(msg(ws, "c"));
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
    await expect(client.post(Array.from({ length: 501 }, (_, i) => msg(ws, `x${i}`)))).rejects.toMatchObject({
      code: "payload_too_large",
    });
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
    const proxy = await httpProxy(server.url, (n, seen) =>
      seen >= 2 ? "forward" : n % 7 === 0 ? [503, "0"] : n % 3 === 0 ? "drop" : "forward",
    );
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
      const batches = Array.from({ length: 4 }, (_, k) =>
        Array.from({ length: 10 }, (_, i) => ({ ...msg(ws, `r${k}-${i}`), id: newId("event") })),
      );
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
