import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../lib/server/api/app";
import { key, message, newHarness, newWorkspace, request, startRun, type Answer, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

/**
 * The role matrix (issue 15), generated from the route table and the socket events: for
 * every route and event, each of owner / member / viewer / revoked / other-workspace gets
 * exactly the answer below. A route or event without a row fails the test. `token` is the
 * workspace's first owner by their person API token (a bearer, no cookie): it gets what an
 * owner gets. The harnesses' namespace has its own rows below.
 */
const WHO = ["owner", "member", "viewer", "revoked", "other", "token"] as const;
type Who = (typeof WHO)[number];
type Expect = Record<Who, number>;

interface Ctx {
  ws: Workspace;
  runId: string;
  /** A member of ws made for this one request (a target to revoke). */
  freshPerson(): Promise<string>;
  freshHarness(): Promise<string>;
  freshInvite(): Promise<string>;
  /** A new token of a new harness: its public id. */
  freshToken(): Promise<string>;
  /** A share link of the run made by the member (its creator) for this one request. */
  freshShare(): Promise<string>;
}
interface Row {
  req: (c: Ctx) => Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown };
  expect: Expect;
}

const all = (n: number): Expect => ({ owner: n, member: n, viewer: n, revoked: n, other: n, token: n });
const read = (otherStatus: number): Expect => ({
  owner: 200,
  member: 200,
  viewer: 200,
  revoked: 401,
  other: otherStatus,
  token: 200,
});
const write = (ok: number, otherStatus = 403): Expect => ({
  owner: ok,
  member: ok,
  viewer: 403,
  revoked: 401,
  other: otherStatus,
  token: ok,
});
const manage = (ok: number): Expect => ({ owner: ok, member: 403, viewer: 403, revoked: 401, other: 403, token: ok });
const nobody = (): Expect => ({ owner: 403, member: 403, viewer: 403, revoked: 401, other: 403, token: 403 });
const SHA = "a".repeat(64);
/** A task of its own scope (so starting it overlaps no other row's), made by the member. */
const aTask = () => ({
  title: "t",
  prompt: "p",
  repository: "r",
  write_scope: [`${key()}/**`],
  idempotency_key: key(),
});
async function freshTask(c: Ctx): Promise<string> {
  const made = await send("member", "POST", `/api/v1/spaces/${c.ws.space_id}/tasks`, aTask());
  expect(made.status, made.text).toBe(201);
  return made.body.task_id;
}

const ROUTES: Record<string, Row> = {
  "GET /api/v1/health/live": { req: () => ({ path: "/api/v1/health/live" }), expect: all(200) },
  "GET /api/v1/health": { req: () => ({ path: "/api/v1/health" }), expect: all(200) },
  "GET /api/v1/health/ready": { req: () => ({ path: "/api/v1/health/ready" }), expect: all(200) },
  "GET /schemas/:file": { req: () => ({ path: "/schemas/envelope.json" }), expect: all(200) },
  "GET /schemas": { req: () => ({ path: "/schemas" }), expect: all(200) },
  "GET /api/v1/me": { req: () => ({ path: "/api/v1/me" }), expect: { ...all(200), revoked: 401 } },
  "POST /api/v1/events": {
    req: (c) => ({ path: "/api/v1/events", body: { ...message(c.ws, "hi"), actor: undefined } }),
    expect: write(201),
  },
  "GET /api/v1/workspaces/:ws/events": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/events` }),
    expect: read(403),
  },
  "GET /api/v1/workspaces/:ws/runs": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/runs` }),
    expect: read(403),
  },
  "GET /api/v1/runs/:run": { req: (c) => ({ path: `/api/v1/runs/${c.runId}` }), expect: read(404) },
  "POST /api/v1/admin/workspaces": { req: () => ({ path: "/api/v1/admin/workspaces", body: {} }), expect: nobody() },
  "POST /api/v1/admin/login-links": {
    req: (c) => ({ path: "/api/v1/admin/login-links", body: { workspace_id: c.ws.workspace_id } }),
    expect: nobody(),
  },
  "POST /api/v1/workspaces/:ws/spaces": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/spaces`, body: { name: "more" } }),
    expect: write(201),
  },
  "POST /api/v1/workspaces/:ws/harnesses": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses`, body: { name: "h" } }),
    expect: manage(201),
  },
  "POST /api/v1/runs/:run/commands": {
    req: (c) => ({
      path: `/api/v1/runs/${c.runId}/commands`,
      body: { command: "steer", text: "this way", idempotency_key: key() },
    }),
    expect: write(201, 404),
  },
  "GET /api/v1/runs/:run/commands": { req: (c) => ({ path: `/api/v1/runs/${c.runId}/commands` }), expect: read(404) },
  // The run's harness is connected (it just posted): a force-finish is refused by the run rules, after the role check.
  "POST /api/v1/runs/:run/force-finish": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/force-finish` }),
    expect: write(409, 404),
  },
  "GET /api/v1/commands": { req: () => ({ path: "/api/v1/commands" }), expect: nobody() },
  "POST /api/v1/runs": {
    req: (c) => ({
      path: "/api/v1/runs",
      body: { space_id: c.ws.space_id, prompt: "p", repository: "r", idempotency_key: key() },
    }),
    expect: { ...write(201), other: 404 },
  },
  "GET /api/v1/workspaces/:ws/runners": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/runners` }),
    expect: read(403),
  },
  "GET /api/v1/runs/:run/runner-events": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/runner-events` }),
    expect: read(404),
  },
  "PUT /api/v1/runs/:run/objects": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/objects`, body: "bytes" }),
    expect: nobody(),
  },
  "GET /api/v1/runs/:run/objects/:sha": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/objects/${SHA}` }),
    expect: { ...all(404), revoked: 401 },
  },
  // The signature is the credential: without a valid one everybody is refused alike.
  "GET /objects/:ws/:run/:sha": {
    req: (c) => ({ path: `/objects/${c.ws.workspace_id}/${c.runId}/${SHA}?exp=1&sig=${SHA}` }),
    expect: all(403),
  },
  "GET /api/v1/spaces/:space/room": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/room` }),
    expect: read(404),
  },
  "GET /api/v1/spaces/:space/revisions": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/revisions` }),
    expect: read(404),
  },
  "GET /api/v1/spaces/:space/decisions": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/decisions` }),
    expect: read(404),
  },
  // Tasks (issue 14, [TSK1]-[TSK4]): everyone of the workspace reads them; members and owners make, edit and start them.
  "GET /api/v1/spaces/:space/tasks": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/tasks` }),
    expect: read(404),
  },
  "POST /api/v1/spaces/:space/tasks": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/tasks`, body: aTask() }),
    expect: { ...write(201), other: 404 },
  },
  "PUT /api/v1/spaces/:space/tasks/:task": {
    req: async (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/tasks/${await freshTask(c)}`, body: aTask() }),
    expect: { ...write(201), other: 404 },
  },
  "POST /api/v1/spaces/:space/tasks/:task/start": {
    req: async (c) => ({
      path: `/api/v1/spaces/${c.ws.space_id}/tasks/${await freshTask(c)}/start`,
      body: { idempotency_key: key() },
    }),
    expect: { ...write(201), other: 404 },
  },
  // Budgets (issue 14): everyone of the workspace sees spend; the owner sets limits (a huge one here, so no other row is refused).
  "GET /api/v1/workspaces/:ws/budgets": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/budgets` }),
    expect: read(403),
  },
  "PUT /api/v1/workspaces/:ws/budgets/:subject": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/budgets/*`, body: { tokens_per_month: 1e12 } }),
    expect: manage(200),
  },
  "GET /api/v1/workspaces/:ws/people": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/people` }),
    expect: read(403),
  },
  "POST /api/v1/workspaces/:ws/invites": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/invites`, body: { role: "viewer" } }),
    expect: manage(201),
  },
  "DELETE /api/v1/workspaces/:ws/people/:person": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/people/${await c.freshPerson()}` }),
    expect: manage(200),
  },
  "GET /api/v1/workspaces/:ws/harnesses": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses` }),
    expect: manage(200),
  },
  "DELETE /api/v1/workspaces/:ws/harnesses/:harness": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses/${await c.freshHarness()}` }),
    expect: manage(200),
  },
  "GET /api/v1/workspaces/:ws/access": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/access` }),
    expect: manage(200),
  },
  "PATCH /api/v1/workspaces/:ws/people/:person": {
    req: async (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/people/${await c.freshPerson()}`,
      body: { role: "viewer" },
    }),
    expect: manage(200),
  },
  "DELETE /api/v1/workspaces/:ws/invites/:invite": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/invites/${await c.freshInvite()}` }),
    expect: manage(200),
  },
  "POST /api/v1/workspaces/:ws/harnesses/:harness/tokens": {
    req: async (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses/${await c.freshHarness()}/tokens`,
      body: {},
    }),
    expect: manage(201),
  },
  "DELETE /api/v1/workspaces/:ws/tokens/:token": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/tokens/${await c.freshToken()}` }),
    expect: manage(200),
  },
  // Review (issue 13): viewers review — they read runs, exports and keep their own views; an import writes.
  "GET /api/v1/workspaces/:ws/review/runs": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/runs?status=running` }),
    expect: read(403),
  },
  "GET /api/v1/workspaces/:ws/review/views": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/views` }),
    expect: read(403),
  },
  "POST /api/v1/workspaces/:ws/review/views": {
    req: (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/review/views`,
      body: { name: "mine", query: "status=failed" },
    }),
    expect: { ...read(403), owner: 201, member: 201, viewer: 201, token: 201 },
  },
  "DELETE /api/v1/workspaces/:ws/review/views/:view": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/views/view_none` }),
    expect: { ...read(403), owner: 404, member: 404, viewer: 404, token: 404 },
  },
  "POST /api/v1/runs/:run/annotations": {
    req: (c) => ({
      path: `/api/v1/runs/${c.runId}/annotations`,
      body: { verdict: "approved", idempotency_key: key() },
    }),
    expect: write(201, 404),
  },
  "GET /api/v1/runs/:run/events": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/events?type=run.status` }),
    expect: read(404),
  },
  "GET /api/v1/runs/:run/export": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/export?format=ndjson` }),
    expect: read(404),
  },
  "GET /api/v1/workspaces/:ws/review/export": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/export?status=running` }),
    expect: read(403),
  },
  "POST /api/v1/workspaces/:ws/import": {
    req: (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/import`,
      body: {
        chips_export: 1,
        exported_at: new Date().toISOString(),
        workspace_id: c.ws.workspace_id,
        directory: { persons: {}, harnesses: {}, rooms: {} },
        runs: [],
      },
    }),
    expect: write(200),
  },
  "GET /api/v1/workspaces/:ws/review/rollups": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/rollups?by=harness&format=csv` }),
    expect: read(403),
  },
  // Share links ([SHR1]): members and owners make them, everyone of the workspace sees them, the maker (here the member) or an owner revokes.
  "POST /api/v1/runs/:run/shares": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/shares`, body: { expires_in_seconds: 3600 } }),
    expect: write(201, 404),
  },
  "GET /api/v1/workspaces/:ws/shares": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/shares` }),
    expect: read(403),
  },
  "DELETE /api/v1/workspaces/:ws/shares/:share": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/shares/${await c.freshShare()}` }),
    expect: { owner: 200, member: 200, viewer: 403, revoked: 401, other: 403, token: 200 },
  },
};

/** Socket events of the people's namespace: what each gets back. `refused`: the handshake is refused. */
const SOCKET_EVENTS: Record<string, Record<Who, "ok" | "space_not_found" | "refused" | "no answer">> = {
  join: { owner: "ok", member: "ok", viewer: "ok", revoked: "refused", other: "space_not_found", token: "ok" },
  history: { owner: "ok", member: "ok", viewer: "ok", revoked: "refused", other: "space_not_found", token: "ok" },
  leave: {
    owner: "no answer",
    member: "no answer",
    viewer: "no answer",
    revoked: "refused",
    other: "no answer",
    token: "no answer",
  },
};

/**
 * Socket events of the harnesses' namespace: a runner of the workspace, a plain harness of it
 * (`not heard`: it has no such handler), a revoked runner, and another workspace's runner.
 * The run asked about is the workspace's, leased to nobody.
 */
const HARNESS_WHO = ["runner", "harness", "revoked", "other"] as const;
type HarnessWho = (typeof HARNESS_WHO)[number];
const HARNESS_EVENTS: Record<string, Record<HarnessWho, string>> = {
  "runner.hello": { runner: "ok", harness: "not heard", revoked: "refused", other: "ok" },
  "lease.renew": { runner: "not_your_run", harness: "not heard", revoked: "refused", other: "not_your_run" },
};

let server: TestServer;
let ws: Workspace;
let otherWs: Workspace;
const cookies = {} as Record<Who, string>;

async function newInvite(w: Workspace, role: string): Promise<{ url: string; invite_id: string }> {
  const r = await request(`${server.url}/api/v1/workspaces/${w.workspace_id}/invites`, {
    method: "POST",
    token: server.adminToken,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ role }),
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}
const invite = async (w: Workspace, role: string) => (await newInvite(w, role)).url;

/** Open an invite as a browser would: answers the session cookie and the new person's id. */
async function join(
  w: Workspace,
  role: string,
  name = `${role} person`,
): Promise<{ cookie: string; personId: string }> {
  const url = new URL(await invite(w, role));
  const res = await fetch(
    `${server.url}/invite?code=${url.searchParams.get("code")}&name=${encodeURIComponent(name)}`,
    { redirect: "manual" },
  );
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  const me = await request(`${server.url}/api/v1/me`, { headers: { cookie } });
  return { cookie, personId: me.body.id };
}

function send(who: Who, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> =
    who === "token" ? { authorization: `Bearer ${ws.person_token}` } : { cookie: cookies[who], origin: server.url };
  if (body !== undefined)
    headers["content-type"] = typeof body === "string" ? "application/octet-stream" : "application/json";
  return request(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

beforeAll(async () => {
  server = await startTestServer({ authAttemptsPerMinute: 0 });
  ws = await newWorkspace(server);
  otherWs = await newWorkspace(server);
  for (const who of ["owner", "member", "viewer"] as const) cookies[who] = (await join(ws, who)).cookie;
  cookies.other = (await join(otherWs, "owner")).cookie;
  const gone = await join(ws, "member", "soon gone");
  cookies.revoked = gone.cookie;
  const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/people/${gone.personId}`, {
    method: "DELETE",
    token: server.adminToken,
  });
  expect(r.status).toBe(200);
});
afterAll(() => server.close());

describe("the role matrix (owner / member / viewer / revoked / other workspace)", () => {
  it("every route of the API has a row, and every row is a route", () => {
    const routes = [
      ...new Set(
        createApi(server.chips.services)
          .routes.filter((r) => r.method !== "ALL")
          .map((r) => `${r.method} ${r.path}`),
      ),
    ];
    expect(
      routes.filter((r) => !ROUTES[r]),
      "routes without a row in the matrix",
    ).toEqual([]);
    expect(
      Object.keys(ROUTES).filter((r) => !routes.includes(r)),
      "rows without a route",
    ).toEqual([]);
  });

  for (const [route, row] of Object.entries(ROUTES)) {
    it(`${route}: ${WHO.map((w) => `${w} ${row.expect[w]}`).join(", ")}`, async () => {
      const runId = await startRun(server, ws);
      const ctx: Ctx = {
        ws,
        runId,
        freshPerson: async () => (await join(ws, "member", "a target")).personId,
        freshHarness: async () => (await newHarness(server, ws, "a target")).harness_id,
        freshInvite: async () => (await newInvite(ws, "viewer")).invite_id,
        freshToken: async () => {
          const h = await newHarness(server, ws, "a token's holder");
          const r = await request(
            `${server.url}/api/v1/workspaces/${ws.workspace_id}/harnesses/${h.harness_id}/tokens`,
            { method: "POST", token: server.adminToken, headers: { "content-type": "application/json" }, body: "{}" },
          );
          return r.body.token_id;
        },
        freshShare: async () => {
          const made = await send("member", "POST", `/api/v1/runs/${runId}/shares`, { expires_in_seconds: 3600 });
          expect(made.status, made.text).toBe(201);
          return made.body.link.id;
        },
      };
      const got = {} as Record<Who, number>;
      for (const who of WHO) {
        const { path, body } = await row.req(ctx);
        got[who] = (await send(who, route.split(" ")[0], path, body)).status;
      }
      expect(got).toEqual(row.expect);
    });
  }

  it("every socket event of the rooms' namespace has a row, and each person gets exactly its answer", async () => {
    // The events the server listens to on a connected socket: the list the matrix must cover.
    const probe = io(server.url, {
      path: "/socket.io",
      transports: ["websocket"],
      extraHeaders: { cookie: cookies.owner },
      reconnection: false,
    });
    await new Promise<void>(
      (resolve, reject) => (probe.once("connect", () => resolve()), probe.once("connect_error", reject)),
    );
    const [serverSide] = [...server.chips.io.of("/").sockets.values()];
    const events = serverSide
      .eventNames()
      .map(String)
      .filter((e) => e !== "disconnect" && e !== "disconnecting" && e !== "error");
    probe.disconnect();
    expect(events.sort()).toEqual(Object.keys(SOCKET_EVENTS).sort());

    for (const [event, answers] of Object.entries(SOCKET_EVENTS)) {
      for (const who of WHO) {
        const s: Socket = io(server.url, {
          path: "/socket.io",
          transports: ["websocket"],
          reconnection: false,
          ...(who === "token" ? { auth: { token: ws.person_token } } : { extraHeaders: { cookie: cookies[who] } }),
        });
        const connected = await new Promise<boolean>(
          (resolve) => (s.once("connect", () => resolve(true)), s.once("connect_error", () => resolve(false))),
        );
        let got: string;
        if (!connected) got = "refused";
        else if (answers[who] === "no answer") {
          // Fire and forget: it answers nothing and the socket stays (the next request is answered).
          s.emit(event, { space_id: ws.space_id });
          got = await s
            .timeout(5000)
            .emitWithAck("history", { space_id: ws.space_id })
            .then(
              () => "no answer",
              () => "socket gone",
            );
        } else {
          const ack = (await s.timeout(5000).emitWithAck(event, { v: 1, space_id: ws.space_id, after_seq: 0 })) as {
            ok?: boolean;
            error?: string;
          };
          got = ack.ok ? "ok" : String(ack.error);
        }
        s.disconnect();
        expect(`${event} as ${who}: ${got}`).toBe(`${event} as ${who}: ${answers[who]}`);
      }
    }
  });

  it("every socket event of the harnesses' namespace has a row, and each harness or runner gets exactly its answer", async () => {
    const runner = await newHarness(server, ws, "matrix runner", "runner");
    const plain = await newHarness(server, ws, "matrix harness");
    const gone = await newHarness(server, ws, "matrix revoked runner", "runner");
    await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/harnesses/${gone.harness_id}`, {
      method: "DELETE",
      token: server.adminToken,
    });
    const elsewhere = await newHarness(server, otherWs, "other runner", "runner");
    const tokens: Record<HarnessWho, string> = {
      runner: runner.token,
      harness: plain.token,
      revoked: gone.token,
      other: elsewhere.token,
    };
    const runId = await startRun(server, ws);
    const hello = { v: 1, name: "matrix", adapters: [], repositories: [], capacity: 1 };
    const nsp = server.chips.io.of("/harness");

    const heard = new Set<string>();
    for (const who of HARNESS_WHO) {
      const s = io(`${server.url}/harness`, {
        path: "/socket.io",
        transports: ["websocket"],
        auth: { token: tokens[who] },
        reconnection: false,
      });
      const connected = await new Promise<boolean>(
        (resolve) => (s.once("connect", () => resolve(true)), s.once("connect_error", () => resolve(false))),
      );
      const serverSide = connected ? nsp.sockets.get(s.id!) : undefined;
      for (const e of serverSide?.eventNames() ?? [])
        if (e !== "disconnect" && e !== "disconnecting" && e !== "error") heard.add(String(e));
      for (const [event, answers] of Object.entries(HARNESS_EVENTS)) {
        let got: string;
        if (!connected) got = "refused";
        else if (!serverSide?.listeners(event).length) got = "not heard";
        else {
          const ack = (await s
            .timeout(5000)
            .emitWithAck(event, event === "runner.hello" ? hello : { run_id: runId })) as {
            ok?: boolean;
            error?: string;
          };
          got = ack.ok ? "ok" : String(ack.error);
        }
        expect(`${event} as ${who}: ${got}`).toBe(`${event} as ${who}: ${answers[who]}`);
      }
      s.disconnect();
    }
    expect([...heard].sort()).toEqual(Object.keys(HARNESS_EVENTS).sort());
  });

  it("people never reach the harnesses' namespace", async () => {
    for (const who of WHO) {
      const s = io(`${server.url}/harness`, {
        path: "/socket.io",
        transports: ["websocket"],
        reconnection: false,
        ...(who === "token"
          ? { auth: { token: ws.person_token } }
          : { extraHeaders: { cookie: cookies[who] }, auth: {} }),
      });
      const refused = await new Promise<boolean>(
        (resolve) => (s.once("connect", () => resolve(false)), s.once("connect_error", () => resolve(true))),
      );
      s.disconnect();
      expect(`${who}: ${refused}`).toBe(`${who}: true`);
    }
  });

  it("a revoked person's open room and a revoked harness's /harness socket close at once; their next request is 401", async () => {
    const member = await join(ws, "member", "about to go");
    const room = io(server.url, {
      path: "/socket.io",
      transports: ["websocket"],
      extraHeaders: { cookie: member.cookie },
      reconnection: false,
    });
    const told: string[] = [];
    room.on("revoked", () => told.push("revoked"));
    await new Promise<void>((resolve) => room.once("connect", () => resolve()));
    expect(await room.timeout(5000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: 0 })).toMatchObject({
      ok: true,
    });
    const h = await newHarness(server, ws, "going too");
    const hs = io(`${server.url}/harness`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: { token: h.token },
      reconnection: false,
    });
    await new Promise<void>((resolve) => hs.once("connect", () => resolve()));

    await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/people/${member.personId}`, {
      method: "DELETE",
      token: server.adminToken,
    });
    await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/harnesses/${h.harness_id}`, {
      method: "DELETE",
      token: server.adminToken,
    });
    await until(() => !room.connected && !hs.connected, "both sockets closed by the server");
    expect(told).toEqual(["revoked"]);
    expect((await request(`${server.url}/api/v1/me`, { headers: { cookie: member.cookie } })).status).toBe(401);
    expect((await request(`${server.url}/api/v1/me`, { token: h.token })).status).toBe(401);
  });
});
