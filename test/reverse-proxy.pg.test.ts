import fs from "node:fs";
import { io } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, type Workspace } from "./support/api";
import { freshDatabase, spawnServer, startTestServer, type ServerProcess, type TestServer } from "./support/server";
import { requestFrom, startHaproxy, type ReverseProxy } from "./support/reverse-proxy";

/**
 * Chips behind a real HAProxy (docs/OPERATIONS.md, [OPS1] and [OPS2]). The test's clients
 * connect to the proxy from different loopback addresses, so the proxy's X-Forwarded-For
 * names two clients while every request reaches Chips from the proxy's own 127.0.0.1 — as
 * everyone behind an office NAT or one nginx does.
 */
const CLIENT_A = "127.0.0.2";
const CLIENT_B = "127.0.0.3";

const me = (from: string, url: string, token: string, headers: Record<string, string> = {}) =>
  requestFrom(from, `${url}/api/v1/me`, { headers: { authorization: `Bearer ${token}`, ...headers } });

/** Connects a room socket through `url` from a given address: "connected" or the handshake's error. */
const socketFrom = (from: string, url: string, token: string) =>
  new Promise<string>((resolve) => {
    const s = io(url, { transports: ["websocket"], auth: { token }, reconnection: false, localAddress: from } as never);
    s.once("connect", () => (s.disconnect(), resolve("connected")));
    s.once("connect_error", (e) => (s.disconnect(), resolve(e.message)));
  });

/** Forty bad tokens from one client, as a guesser sends them; their statuses. */
async function guess(from: string, url: string, headers: (i: number) => Record<string, string> = () => ({})) {
  const codes: number[] = [];
  for (let i = 0; i < 40; i++) codes.push((await me(from, url, `chips_usr_guess-${i}`, headers(i))).status);
  return codes;
}

describe("[OPS2] behind HAProxy, trusted as 127.0.0.1/32", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let chips: ServerProcess;
  let proxy: ReverseProxy;
  let ws: Workspace;
  beforeAll(async () => {
    db = await freshDatabase();
    chips = await spawnServer({
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
      CHIPS_DATA_DIR: db.dataDir,
      CHIPS_LOG_LEVEL: "debug",
      CHIPS_TRUSTED_PROXIES: "127.0.0.1/32",
    });
    proxy = await startHaproxy(chips.url);
    const adminToken = fs.readFileSync(`${db.dataDir}/admin-token`, "utf8").trim();
    ws = await newWorkspace({ url: chips.url, adminToken } as TestServer);
  });
  afterAll(async () => {
    await proxy?.stop();
    chips?.proc.kill("SIGTERM");
    await chips?.exited;
    await db?.drop();
  });

  it("[OPS1] [OPS2] 40 bad tokens from client A: A gets 429 past its 30; client B behind the same proxy still gets 401; the owner's token answers 200 from both", async () => {
    const codes = await guess(CLIENT_A, proxy.url);
    expect(codes.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(codes.at(-1)).toBe(429);
    expect(new Set(codes)).toEqual(new Set([401, 429]));
    const refused = await me(CLIENT_A, proxy.url, "chips_usr_one-more");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // The owner's valid token, from the guesser's own address and from another: in at once.
    expect((await me(CLIENT_A, proxy.url, ws.person_token)).status).toBe(200);
    expect((await me(CLIENT_B, proxy.url, ws.person_token)).status).toBe(200);
    // B has its own attempts: the proxy's shared address did not spend them.
    expect((await me(CLIENT_B, proxy.url, "chips_usr_typo")).status).toBe(401);
  });

  it("[OPS1] [OPS2] sockets through the proxy's WebSocket tunnel: from client A, out of attempts, the owner's token connects and a bad one is refused", async () => {
    expect((await me(CLIENT_A, proxy.url, "chips_usr_still-guessing")).status).toBe(429);
    expect(await socketFrom(CLIENT_A, proxy.url, ws.person_token)).toBe("connected");
    expect(await socketFrom(CLIENT_A, proxy.url, "chips_usr_guess-socket")).toBe("unauthorized");
  });

  it("[OPS2] a client that forges X-Forwarded-For through the proxy is still itself: the proxy appends its real address", async () => {
    // A writes B's address (and others) itself; HAProxy appends A's: A's spent attempts follow it.
    const forged = await me(CLIENT_A, proxy.url, "chips_usr_forged", { "x-forwarded-for": `${CLIENT_B}, 10.0.0.1` });
    expect(forged.status).toBe(429);
    // Straight to Chips, not through the trusted proxy, the header is the client's own word: ignored.
    const direct = await me(CLIENT_B, chips.url, "chips_usr_direct", { "x-forwarded-for": CLIENT_A });
    expect(direct.status).toBe(401);
  });

  it("[OPS2] the log names client A, not the proxy's 127.0.0.1: the request lines and the one warning", async () => {
    const lines = () =>
      chips
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await expect
      .poll(() => lines().filter((l) => l.msg === "request" && l.path === "/api/v1/me" && l.status === 429).length)
      .toBeGreaterThanOrEqual(10);
    const limited = lines().filter((l) => l.msg === "request" && l.path === "/api/v1/me" && l.status === 429);
    expect(new Set(limited.map((l) => l.address))).toEqual(new Set([CLIENT_A]));
    const ok = lines().filter((l) => l.msg === "request" && l.path === "/api/v1/me" && l.status === 200);
    expect(new Set(ok.map((l) => l.address))).toEqual(new Set([CLIENT_A, CLIENT_B]));
    const warned = lines().filter((l) => l.msg === "too many failed sign-in attempts from this address");
    expect(warned).toEqual([expect.objectContaining({ address: CLIENT_A, what: "bearer token" })]);
  });
});

describe("[OPS2] with no trusted proxy, X-Forwarded-For changes nothing", () => {
  let server: TestServer;
  let proxy: ReverseProxy;
  let ws: Workspace;
  beforeAll(async () => {
    server = await startTestServer({ authAttemptsPerMinute: 30 });
    proxy = await startHaproxy(server.url);
    ws = await newWorkspace(server);
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.close();
  });

  it("[OPS2] a forged X-Forwarded-For on each guess spends the sender's own attempts; behind the untrusted proxy everyone is the proxy; a valid token still answers 200", async () => {
    const codes = await guess(CLIENT_A, server.url, (i) => ({ "x-forwarded-for": `198.51.100.${i}` }));
    expect(codes.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(codes.at(-1)).toBe(429);
    // Through the untrusted proxy every client is the proxy (127.0.0.1): B's guesses spend
    // its attempts, and then A's first failure through it is refused too.
    expect((await guess(CLIENT_B, proxy.url)).at(-1)).toBe(429);
    expect((await me(CLIENT_A, proxy.url, "chips_usr_typo")).status).toBe(429);
    expect((await me(CLIENT_B, proxy.url, ws.person_token)).status).toBe(200);
    expect((await me(CLIENT_A, server.url, ws.person_token, { "x-forwarded-for": "198.51.100.1" })).status).toBe(200);
  });
});
