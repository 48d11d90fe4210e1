import { io } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { clipUtf8 } from "../lib/core/protocol/clip";
import type { RouteDecl } from "../lib/core/protocol/route";
import { ROUTES } from "../lib/core/routes";
import { newHarness, newRoom, serverWithWorkspace, startRun, type Workspace } from "./support/api";
import type { TestServer } from "./support/server";

/**
 * [HTTP6] Garbage never answers 5xx: every route of the route table, under every kind of
 * credential, is sent garbage in its path parameters, in each query parameter it declares and
 * in its body (whole bodies, then each declared field alone) — and answers each with a status
 * below 500, a refusal as problem+json.
 */
let server: TestServer;
let ws: Workspace;
let roomId: string;
let runId: string;
let runnerToken: string;
beforeAll(async () => {
  ({ server, ws } = await serverWithWorkspace());
  roomId = (await newRoom(server, ws, "garbage")).space_id;
  runId = await startRun(server, ws);
  runnerToken = (await newHarness(server, ws, "garbage runner", "runner")).token;
});
afterAll(() => server?.close());

const PATH = [
  "x",
  "%FF",
  "%00",
  "a".repeat(3000),
  "%E2%80%AE",
  "..%2F..",
  "%C3%28",
  encodeURIComponent("é".repeat(80)),
  "-1",
  "run_" + "0".repeat(26),
];
const QUERY = [
  "",
  "-1",
  "99999999999999999999999",
  "NaN",
  "%FF",
  "%00",
  "a".repeat(5000),
  "true",
  "1e309",
  "2026-13-45T99:99:99Z",
];
const BODIES: string[] = [
  "",
  "null",
  "[]",
  '"x"',
  "{}",
  "{",
  "1",
  "[".repeat(20_000),
  '{"__proto__":{"polluted":1}}',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
];
const FIELD: unknown[] = [
  null,
  -1,
  1e308,
  "",
  "x".repeat(70_000),
  [],
  {},
  true,
  "\u0000",
  "\ud800",
  [null],
  { a: [{}] },
  "é".repeat(5000),
];

/** The keys of an object schema, through the pipes and wrappers a declaration may put around it. */
function keysOf(schema: unknown): string[] {
  let s = schema as { _zod?: { def?: Record<string, unknown> } } | undefined;
  for (let i = 0; i < 5 && s; i++) {
    if (s instanceof z.ZodObject) return Object.keys(s.shape);
    const def = s._zod?.def;
    s = (def?.in ?? def?.innerType ?? def?.schema) as typeof s;
  }
  return [];
}

describe("[HTTP6] garbage never answers 5xx", () => {
  it("[HTTP6] every route, every credential kind: garbage in the path, the query and the body answers below 500, refusals as problem+json", async () => {
    const creds: Record<string, string> = {
      admin: server.adminToken,
      person: ws.person_token,
      harness: ws.token,
      runner: runnerToken,
    };
    const real: Record<string, string> = { ws: ws.workspace_id, run: runId, space: roomId };
    const bad = new Set<string>();
    let sent = 0;
    for (const r of Object.values(ROUTES) as RouteDecl[]) {
      const method = r.method.toUpperCase();
      const takesBody = method !== "GET" && method !== "DELETE";
      const fill = (v?: string) => r.path.replace(/:(\w+)/g, (_, k: string) => v ?? real[k] ?? "x");
      const send = async (path: string, body: string | undefined, token: string, what: string) => {
        sent++;
        const res = await fetch(server.url + path, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": r.body?.media ?? "application/json" },
          body: takesBody ? body : undefined,
        });
        const text = await res.text();
        const type = res.headers.get("content-type") ?? "";
        if (res.status >= 500 || (res.status >= 400 && !type.includes("application/problem+json")))
          bad.add(`${res.status} ${r.method} ${r.path} ${what}: ${type} ${clipUtf8(text, 160)}`);
      };
      for (const [who, token] of Object.entries(creds)) {
        if (r.path.includes(":"))
          for (const v of PATH) await send(fill(v), "{}", token, `${who} path ${clipUtf8(v, 24)}`);
        for (const k of keysOf(r.query))
          for (const v of QUERY)
            await send(`${fill()}?${k}=${v}&${k}=${v}`, "{}", token, `${who} ?${k}=${clipUtf8(v, 24)}`);
        if (!takesBody) continue;
        for (const b of BODIES) await send(fill(), b, token, `${who} body ${clipUtf8(b, 24)}`);
        for (const f of keysOf(r.body?.schema))
          for (const v of FIELD)
            await send(fill(), JSON.stringify({ [f]: v }), token, `${who} ${f}=${clipUtf8(JSON.stringify(v), 24)}`);
      }
    }
    expect(sent).toBeGreaterThan(5000);
    expect([...bad]).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 300_000);
});

describe("[HTTP6] garbage in a session cookie", () => {
  it("[HTTP6] a cookie value that is not percent-encoding is no session: 401 alone, the token beside it still counts, the socket is refused unauthorized", async () => {
    for (const cookie of ["chips_session=%", "chips_session=%E0%A4%A", "chips_session=%00"]) {
      expect((await fetch(`${server.url}/api/v1/me`, { headers: { cookie } })).status, cookie).toBe(401);
      const withToken = await fetch(`${server.url}/api/v1/me`, {
        headers: { cookie, authorization: `Bearer ${ws.person_token}` },
      });
      expect(withToken.status, cookie).toBe(200);
      const socket = io(server.url, {
        transports: ["websocket"],
        extraHeaders: { cookie },
        forceNew: true,
        reconnection: false,
      });
      const refused = await new Promise<string>((resolve) => {
        socket.on("connect", () => resolve("connected"));
        socket.on("connect_error", (e) => resolve(e.message));
      });
      socket.close();
      expect(refused, cookie).toBe("unauthorized");
    }
  });
});

describe("[HTTP6] garbage in a page's address", () => {
  it("[HTTP6] a page path that is not valid percent-encoding is 400 before any page handler, a valid one is not", async () => {
    for (const path of ["/w/%FF", `/w/${ws.workspace_id}/runs/%E0%A4%A`, "/w/%"]) {
      const res = await fetch(server.url + path, { redirect: "manual" });
      expect(res.status, path).toBe(400);
    }
    // This test server serves the API only: a decodable page path reaches the page side (404 here).
    expect((await fetch(`${server.url}/w/%C3%A9`, { redirect: "manual" })).status).toBe(404);
  });
});
