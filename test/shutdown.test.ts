import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { message, newWorkspace, readEvents, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { socketHarness } from "./support/harness";
import { freePort, freshDatabase, spawnServer, type ServerProcess } from "./support/server";
import { Wire, type WireAnswer } from "./support/wire";

/**
 * Stopping a server (SIGTERM) while a load balancer, a person and a harness are connected
 * ([OPS4], docs/OPERATIONS.md "Stopping"). A load balancer keeps its connections alive, so a
 * node that kept answering on them after its signal kept being sent work and said "ready".
 * The real server as its own process, on both databases; raw HTTP/1.1 connections (test/support/wire.ts)
 * so each request goes on the connection the test means, whole or in parts.
 */
const procs: ServerProcess[] = [];
afterAll(() => procs.forEach((p) => p.proc.kill("SIGKILL")));

const head = (method: string, path: string, headers: Record<string, string | number> = {}) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");

/** The head of `POST /api/v1/events` for a body of `bytes`, without the blank line that ends it. */
const postHead = (token: string, bytes: number, more: Record<string, string> = {}) =>
  head("POST", "/api/v1/events", {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    "content-length": bytes,
    ...more,
  });

const answered = (a: WireAnswer | "closed"): WireAnswer => {
  if (a === "closed") throw new Error("the server closed the connection without answering");
  return a;
};

async function serving(env: Record<string, string>) {
  const server = await spawnServer(env);
  procs.push(server);
  return server;
}

describe("[OPS4] stopping a server", { timeout: 120_000 }, () => {
  it("[OPS4] on SIGTERM: not ready at once, in-flight requests finish, kept-alive connections close, new work gets 503, sockets are told to go elsewhere, exit 0 within the bound; a new server on the same data serves", async () => {
    const db = await freshDatabase();
    const port = await freePort();
    const env: Record<string, string> = {
      CHIPS_DATA_DIR: db.dataDir,
      PORT: String(port),
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    let server = await serving(env);
    const adminToken = fs.readFileSync(`${db.dataDir}/admin-token`, "utf8").trim();
    const ws: Workspace = await newWorkspace({ url: server.url, adminToken } as never);

    // A person with the room open and a harness on /harness, both reconnecting by themselves.
    const person = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    const harness = socketHarness(server.url, ws.token);
    const harnessLeft: string[] = [];
    harness.socket.on("disconnect", (reason) => harnessLeft.push(reason));
    await until(() => person.statuses.includes("live"), "the person's room live");
    await harness.connected();

    // A load balancer's kept-alive connection, idle between its checks.
    const idle = await Wire.open(server.url);
    expect(answered(await idle.request(head("GET", "/api/v1/health") + "\r\n")).status).toBe(200);
    // A request in flight when the signal comes: its head taken (100 Continue), its body not yet sent.
    const kept = message(ws, "sent before the signal, finished after it");
    const keptBody = JSON.stringify(kept);
    const inFlight = await Wire.open(server.url);
    inFlight.write(postHead(ws.token, Buffer.byteLength(keptBody), { expect: "100-continue" }) + "\r\n");
    expect(await inFlight.continued()).toBe(true);
    // Requests that arrive after the signal on connections already open: their heads begun now, ended after.
    const lateCheck = await Wire.open(server.url);
    lateCheck.write(head("GET", "/api/v1/health"));
    const refused = message(ws, "sent after the signal");
    const refusedBody = JSON.stringify(refused);
    const lateWrite = await Wire.open(server.url);
    lateWrite.write(postHead(ws.token, Buffer.byteLength(refusedBody)));
    // One round trip on another connection after those bytes: the server has read them.
    const other = await Wire.open(server.url);
    expect(answered(await other.request(head("GET", "/api/v1/health/live") + "\r\n")).status).toBe(200);

    const signalled = performance.now();
    server.proc.kill("SIGTERM");
    const exitedAfter = server.exited.then((code) => ({ code, ms: performance.now() - signalled }));
    await until(() => /shutting down/.test(server.output()), "the server to say it is shutting down", 10_000);

    // Not ready, at once, and the connection closed after the answer.
    const check = answered(await lateCheck.request("\r\n"));
    expect(check.status).toBe(503);
    expect(check.json).toMatchObject({ ready: false, live: true, state: "shutting_down" });
    expect(check.headers.connection).toBe("close");
    // New work: 503 unavailable with a Retry-After, nothing stored.
    const write = answered(await lateWrite.request("\r\n", refusedBody));
    expect(write.status).toBe(503);
    expect(write.json.code).toBe("unavailable");
    expect(Number(write.headers["retry-after"])).toBeGreaterThan(0);
    expect(write.headers.connection).toBe("close");
    // The request in flight finishes (stored), and its connection closes after the answer.
    inFlight.write(keptBody);
    const finished = answered(await inFlight.answer());
    expect(finished.status).toBe(201);
    expect(finished.headers.connection).toBe("close");
    // Every kept-alive connection is closed by the server, idle ones without a word.
    for (const c of [idle, lateCheck, lateWrite, inFlight, other]) await c.ended;
    expect(await idle.answer()).toBe("closed");

    // The sockets were closed under the clients (not "io server disconnect", after which a client stays away).
    await until(() => harnessLeft.length > 0 && person.statuses.at(-1) === "reconnecting", "both sockets closed");
    expect(harnessLeft[0]).toBe("transport close");

    const exit = await exitedAfter;
    expect(exit.code).toBe(0);
    expect(exit.ms).toBeLessThan(10_000);
    expect(server.output()).not.toMatch(/"level":(50|60)/); // nothing logged at error or fatal

    // A new server on the same data directory and port serves, and both clients are back by themselves.
    server = await serving(env);
    const health = await fetch(`${server.url}/api/v1/health`);
    expect(health.status).toBe(200);
    await until(() => person.statuses.at(-1) === "live", "the person's room live again", 20_000);
    await until(() => harness.socket.connected, "the harness connected again", 20_000);
    const stored = (await readEvents(server, ws)).map((e) => e.id);
    expect(stored).toContain(kept.id);
    expect(stored).not.toContain(refused.id);

    person.feed.stop();
    harness.socket.close();
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await db.drop();
  });

  it("[OPS4] a request that never finishes does not hold the process: it exits within CHIPS_SHUTDOWN_TIMEOUT, logging what was open", async () => {
    const db = await freshDatabase();
    const env: Record<string, string> = {
      CHIPS_DATA_DIR: db.dataDir,
      CHIPS_SHUTDOWN_TIMEOUT: "3",
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    const server = await serving(env);
    const adminToken = fs.readFileSync(`${db.dataDir}/admin-token`, "utf8").trim();
    const ws: Workspace = await newWorkspace({ url: server.url, adminToken } as never);
    const person = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    await until(() => person.statuses.includes("live"), "the person's room live");
    // Its head taken, its body never sent.
    const stuck = await Wire.open(server.url);
    stuck.write(postHead(ws.token, 1000, { expect: "100-continue" }) + "\r\n");
    expect(await stuck.continued()).toBe(true);
    const signalled = performance.now();
    server.proc.kill("SIGTERM");
    const code = await server.exited;
    const ms = performance.now() - signalled;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(3000 + 1000);
    const said = server
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
    expect(said.find((l) => /requests still in flight at the bound/.test(l.msg))?.requests).toEqual([
      "POST /api/v1/events",
    ]);
    await stuck.ended;
    person.feed.stop();
    await db.drop();
  });
});
