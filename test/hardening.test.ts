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

describe("sign-in attempts are rate-limited per address", () => {
  it("bad bearer tokens: 401 until the bucket is empty, then 429 + Retry-After even for a good token; login links likewise", async () => {
    const own = await startTestServer({ authAttemptsPerMinute: 5 });
    const w = await newWorkspace(own);
    const codes: number[] = [];
    for (let i = 0; i < 7; i++)
      codes.push((await request(`${own.url}/api/v1/me`, { token: `chips_hrn_guess${i}` })).status);
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const blocked = await request(`${own.url}/api/v1/me`, { token: w.token });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(blocked.body.code).toBe("rate_limited");
    const link = await fetch(`${own.url}/w/${w.workspace_id}?login=guess`, { redirect: "manual" });
    expect(link.status).toBe(429);
    await own.close();
  });

  it("a wrong login secret counts: after five, the sixth is refused without looking", async () => {
    const own = await startTestServer({ authAttemptsPerMinute: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await fetch(`${own.url}/w/ws_x?login=guess-${i}`, { redirect: "manual" })).status);
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
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
