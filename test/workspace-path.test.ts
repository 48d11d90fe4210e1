import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../lib/server/api/app";
import { newHarness, newWorkspace, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [HTTP3] A malformed workspace id in a `:ws` path answers `422 validation_failed` at
 * `/path/ws` on every such route, whoever asks — the admin, an owner, a viewer, a harness, a
 * runner, another workspace's owner — once they are signed in: it names no workspace, so the
 * role checks have nothing to judge. The routes are read from the API itself, so a new `:ws`
 * route is covered the day it is added.
 */
let server: TestServer;
let ws: Workspace;
const callers: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  server = await startTestServer({ authAttemptsPerMinute: 0 });
  ws = await newWorkspace(server);
  const other = await newWorkspace(server);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  callers.admin = bearer(server.adminToken);
  callers.owner = bearer(ws.person_token);
  callers.harness = bearer(ws.token);
  callers.runner = bearer((await newHarness(server, ws, "runner", "runner")).token);
  callers["another workspace's owner"] = bearer(other.person_token);
  // A viewer's browser: a session from an invite, writing from a Chips page.
  const invite = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/invites`, {
    method: "POST",
    token: server.adminToken,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ role: "viewer" }),
  });
  const code = new URL(invite.body.url).searchParams.get("code")!;
  const opened = await fetch(`${server.url}/invite?code=${code}&name=Vi`, { redirect: "manual" });
  callers.viewer = { cookie: opened.headers.get("set-cookie")!.split(";")[0], origin: server.url };
});
afterAll(() => server?.close());

/**
 * Every route of the API under `/api/v1/workspaces/:ws`, as `METHOD path`. (The other `:ws`
 * path, a signed object URL `/objects/:ws/…`, is a capability: whatever its signature does not
 * cover is `403`, docs/API.md.)
 */
function workspaceRoutes(): string[] {
  const all = createApi(server.chips.services).routes.filter(
    (r) => r.method !== "ALL" && r.path.startsWith("/api/v1/workspaces/:ws/"),
  );
  return [...new Set(all.map((r) => `${r.method} ${r.path}`))].sort();
}

const MALFORMED = ["nope", "ws_0000000000000000000000000U", "spc_01K4ZQPX000000000000000005", "ws_"];

describe("[HTTP3] a malformed workspace id in the path", () => {
  it("[HTTP3] the API has :ws routes to check, GET and POST /api/v1/workspaces/:ws/… among them", () => {
    const routes = workspaceRoutes();
    expect(routes.length).toBeGreaterThan(20);
    expect(routes).toEqual(
      expect.arrayContaining(["POST /api/v1/workspaces/:ws/spaces", "GET /api/v1/workspaces/:ws/events"]),
    );
  });

  it("[HTTP3] every :ws route answers 422 validation_failed at /path/ws to every signed-in caller, and 401 to no one", async () => {
    const got: string[] = [];
    const want: string[] = [];
    for (const route of workspaceRoutes()) {
      const [method, pattern] = route.split(" ");
      for (const bad of MALFORMED) {
        const path = pattern.replace(":ws", encodeURIComponent(bad)).replace(/:[a-z_]+/g, "x");
        const body = method === "GET" || method === "DELETE" ? undefined : "{}";
        for (const [who, headers] of Object.entries(callers)) {
          const r = await request(`${server.url}${path}`, {
            method,
            headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
            body,
          });
          const pointers = (r.body?.errors ?? []).map((e: { pointer: string }) => e.pointer).join(",");
          got.push(`${route} ${bad} as ${who}: ${r.status} ${r.body?.code} ${pointers}`);
          want.push(`${route} ${bad} as ${who}: 422 validation_failed /path/ws`);
        }
        const anon = await request(`${server.url}${path}`, { method, body });
        got.push(`${route} ${bad} signed out: ${anon.status}`);
        want.push(`${route} ${bad} signed out: 401`);
      }
    }
    expect(got).toEqual(want);
  });
});
