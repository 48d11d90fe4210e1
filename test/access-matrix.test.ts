import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../lib/server/api/app";
import { newHarness, newWorkspace, request, startRun, type Answer, type Workspace } from "./support/api";
import {
  HARNESS_EVENTS,
  HARNESS_WHO,
  ROUTES,
  SOCKET_EVENTS,
  WHO,
  aTask,
  type Ctx,
  type HarnessWho,
  type Who,
} from "./support/access-rows";
import { until } from "./support/feed";
import { ask, permission } from "./support/asks";
import { startTestServer, type TestServer } from "./support/server";

/**
 * The role matrix, generated from the route table and the socket events: for
 * every route and event, each of owner / member / viewer / revoked / other-workspace gets
 * exactly the answer below. A route or event without a row fails the test. `token` is the
 * workspace's first owner by their person API token (a bearer, no cookie): it gets what an
 * owner gets. The harnesses' namespace has its own rows below.
 */

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
        freshAsk: () => ask(server, ws, permission(ws, runId)),
        freshWebhook: async () => {
          const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/webhooks`, {
            method: "POST",
            token: server.adminToken,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ url: "http://127.0.0.1:9/fresh" }),
          });
          expect(r.status, r.text).toBe(201);
          return r.body.id;
        },
        freshTask: async () => {
          const made = await send("member", "POST", `/api/v1/spaces/${ws.space_id}/tasks`, aTask());
          expect(made.status, made.text).toBe(201);
          return made.body.task_id;
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
