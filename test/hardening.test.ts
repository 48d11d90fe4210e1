import fs from "node:fs";
import { io } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverWithWorkspace, message, newWorkspace, post, request, type Workspace } from "./support/api";
import { freshDatabase, spawnServer, startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ authAttemptsPerMinute: 5 })));
afterAll(() => server.close());

/** What every answer carries: pages (e2e/headers.ui.spec.ts), API answers, objects, the socket handshake. */
function expectHardened(h: Headers) {
  expect(h.get("x-frame-options")).toBe("DENY");
  expect(h.get("x-content-type-options")).toBe("nosniff");
  expect(h.get("referrer-policy")).toBe("same-origin");
  expect(h.get("cross-origin-opener-policy")).toBe("same-origin");
  expect(h.get("permissions-policy")).toContain("camera=()");
  expect(h.get("content-security-policy")).toContain("frame-ancestors 'none'");
  expect(h.get("content-security-policy")).toContain("default-src 'none'");
}

describe("security headers on every answer", () => {
  it("API answers: success, problem+json, not found", async () => {
    for (const r of [
      await request(`${server.url}/api/v1/health`),
      await request(`${server.url}/api/v1/me`, { token: ws.token }),
      await post(server, "chips_hrn_nope", message(ws, "x")),
      await request(`${server.url}/api/v1/nowhere`, { token: ws.token }),
      await request(`${server.url}/schemas/envelope.json`),
    ]) {
      expectHardened(r.headers);
      expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("object URLs (a bad signature is refused, hardened like the rest)", async () => {
    const r = await request(
      `${server.url}/objects/${ws.workspace_id}/run_01K4ZQPX000000000000000005/${"0".repeat(64)}?exp=1&sig=${"0".repeat(64)}`,
    );
    expect(r.status).toBe(403);
    expectHardened(r.headers);
  });

  it("the Socket.IO handshake (its polling open; a real client connects with them)", async () => {
    const r = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`);
    expect(r.status).toBe(200);
    expectHardened(r.headers);
    // A real client connects with them too (the engine adds them to every answer it writes).
    const s = io(server.url, {
      path: "/socket.io",
      transports: ["polling"],
      auth: { token: ws.person_token },
      reconnection: false,
    });
    await new Promise<void>((resolve, reject) => (s.once("connect", () => resolve()), s.once("connect_error", reject)));
    s.disconnect();
  });

  it("a request id sent by a proxy in front is kept; a strange one is replaced", async () => {
    const kept = await request(`${server.url}/api/v1/health`, { headers: { "x-request-id": "edge-42.a_b" } });
    expect(kept.headers.get("x-request-id")).toBe("edge-42.a_b");
    const replaced = await request(`${server.url}/api/v1/health`, { headers: { "x-request-id": "<script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("[OPS1] failed sign-ins are limited per address; valid credentials always get in", () => {
  /** A printed link on the test server (its public URL names port 0). */
  const on = (own: TestServer, link: string) => own.url + new URL(link).pathname + new URL(link).search;

  /** Five bad bearer tokens spend the address's attempts (the server allows five a minute). */
  async function spendAttempts(url: string) {
    const codes: number[] = [];
    for (let i = 0; i < 7; i++)
      codes.push((await request(`${url}/api/v1/me`, { token: `chips_hrn_guess${i}` })).status);
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
  }

  it("[OPS1] bad bearer tokens: 401 until the address's attempts are spent, then 429 + Retry-After; a valid token, cookie and socket from the same address still get in", async () => {
    const own = await startTestServer({ authAttemptsPerMinute: 5 });
    const w = await newWorkspace(own);
    const room = await fetch(on(own, w.room_url), { redirect: "manual" });
    const cookie = room.headers.get("set-cookie")!.split(";")[0];
    await spendAttempts(own.url);
    const refused = await request(`${own.url}/api/v1/me`, { token: "chips_hrn_guess-again" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body.code).toBe("rate_limited");
    // The owner's, the harness's and the session's credentials work from the same address, at once.
    expect((await request(`${own.url}/api/v1/me`, { token: w.person_token })).status).toBe(200);
    expect((await post(own, w.token, message(w, "still in"))).status).toBe(201);
    expect((await request(`${own.url}/api/v1/me`, { headers: { cookie } })).status).toBe(200);
    // A bad cookie is a failed attempt like a bad token: 429 now.
    expect((await request(`${own.url}/api/v1/me`, { headers: { cookie: "chips_session=guess" } })).status).toBe(429);
    // Sockets: a bad token is refused, the person's token connects (rooms and /harness alike).
    const connects = (nsp: string, token: string) =>
      new Promise<string>((resolve) => {
        const s = io(own.url + nsp, { transports: ["websocket"], auth: { token }, reconnection: false });
        s.once("connect", () => (s.disconnect(), resolve("connected")));
        s.once("connect_error", (e) => (s.disconnect(), resolve(e.message)));
      });
    expect(await connects("/", "chips_usr_guess")).toBe("unauthorized");
    expect(await connects("/", w.person_token)).toBe("connected");
    expect(await connects("/harness", w.token)).toBe("connected");
    await own.close();
  });

  it("[OPS1] login links and invites: bad ones 303 to the login page until the attempts are spent, then 429; a valid link and invite from the same address still log in", async () => {
    const own = await startTestServer({ authAttemptsPerMinute: 5 });
    const w = await newWorkspace(own);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await fetch(`${own.url}/w/ws_x?login=guess-${i}`, { redirect: "manual" })).status);
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
    expect((await fetch(`${own.url}/invite?code=guess&name=Mallory`, { redirect: "manual" })).status).toBe(429);
    const link = await fetch(on(own, w.room_url), { redirect: "manual" });
    expect(link.status).toBe(303);
    expect(link.headers.get("location")).toBe(new URL(w.room_url).pathname);
    expect(link.headers.get("set-cookie")).toMatch(/^chips_session=/);
    const invite = await request(`${own.url}/api/v1/workspaces/${w.workspace_id}/invites`, {
      method: "POST",
      token: w.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ role: "viewer" }),
    });
    expect(invite.status).toBe(201);
    const code = new URL(invite.body.url as string).searchParams.get("code");
    const joined = await fetch(`${own.url}/invite?code=${code}&name=Lee`, { redirect: "manual" });
    expect(joined.headers.get("location")).toBe(`/w/${w.workspace_id}`);
    expect(joined.headers.get("set-cookie")).toMatch(/^chips_session=/);
    await own.close();
  });
});

describe("text limits are UTF-8 bytes (lib/core/protocol/limits.ts)", () => {
  it("a message of 65,536 bytes is stored; one byte more is 422 — counted in bytes, not characters", async () => {
    const twoByte = "é".repeat(32_768); // 32,768 characters, 65,536 bytes
    expect((await post(server, ws.token, message(ws, twoByte))).status).toBe(201);
    const over = await post(server, ws.token, message(ws, twoByte + "a")); // 32,769 characters: far under 65,536 of them
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([{ pointer: "/text", message: "at most 65536 bytes (UTF-8)" }]);
    const emoji = await post(server, ws.token, message(ws, "🙂".repeat(16_385))); // 32,770 UTF-16 units, 65,540 bytes
    expect(emoji.status).toBe(422);
  });
});

describe("logs are structured and hold no secrets", () => {
  it("tokens, cookies and login secrets never reach the log, even at debug level", async () => {
    const db = await freshDatabase();
    const proc = await spawnServer({
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
      CHIPS_DATA_DIR: db.dataDir,
      CHIPS_LOG_LEVEL: "debug",
    });
    const own = { url: proc.url, adminToken: fs.readFileSync(`${db.dataDir}/admin-token`, "utf8").trim() };
    const w = await newWorkspace(own as never);
    await post(own, w.token, message(w, "hello"));
    await request(`${own.url}/api/v1/me`, { token: "chips_hrn_wrong-secret-token" });
    await request(`${own.url}/api/v1/me`, { headers: { cookie: "chips_session=the-cookie-value" } });
    await fetch(`${own.url}/w/${w.workspace_id}?login=the-login-secret`, { redirect: "manual" });
    proc.proc.kill("SIGTERM");
    await proc.exited;
    const out = proc.output();
    const lines = out.split("\n").filter((l) => l.startsWith("{"));
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(JSON.parse(l)).toHaveProperty("level");
    expect(lines.some((l) => /"requestId":"[0-9a-f-]{36}"/.test(l) && l.includes("/api/v1/events"))).toBe(true);
    for (const secret of [
      w.token,
      w.person_token,
      own.adminToken,
      "wrong-secret-token",
      "the-cookie-value",
      "the-login-secret",
    ]) {
      expect(out).not.toContain(secret);
    }
    await db.drop();
  });
});
