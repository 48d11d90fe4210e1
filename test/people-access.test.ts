import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { message, newHarness, newWorkspace, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

/**
 * What an owner manages on the workspace page (docs/ROLES.md), through the API it calls:
 * tokens one by one with their last use, open invites, and people's roles — each change
 * taking effect at once, open sockets included. Runs on PGlite and on PostgreSQL.
 */
let server: TestServer;
let ws: Workspace;

const admin = (method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, {
    method,
    token: server.adminToken,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const wsPath = () => `/api/v1/workspaces/${ws.workspace_id}`;

interface Token {
  id: string;
  last_used_at: string | null;
  revoked: boolean;
}
async function tokensOf(subject: string): Promise<Token[]> {
  const r = await admin("GET", `${wsPath()}/access`);
  expect(r.status).toBe(200);
  const all = [...r.body.people, ...r.body.harnesses] as { id: string; tokens: Token[] }[];
  return all.find((x) => x.id === subject)!.tokens;
}

function connect(url: string, opts: Parameters<typeof io>[1]): Promise<Socket> {
  const s = io(url, { path: "/socket.io", transports: ["websocket"], reconnection: false, forceNew: true, ...opts });
  return new Promise((resolve, reject) => (s.once("connect", () => resolve(s)), s.once("connect_error", reject)));
}

/** Open an invite (of `ws`, or the workspace given) as a browser would: the new person's session cookie and id. */
async function join(
  role: string,
  name: string,
  workspaceId = ws.workspace_id,
): Promise<{ cookie: string; personId: string }> {
  const made = await admin("POST", `/api/v1/workspaces/${workspaceId}/invites`, { role });
  const code = new URL(made.body.url).searchParams.get("code")!;
  const res = await fetch(`${server.url}/invite?code=${code}&name=${encodeURIComponent(name)}`, { redirect: "manual" });
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  return { cookie, personId: (await request(`${server.url}/api/v1/me`, { headers: { cookie } })).body.id };
}

beforeAll(async () => {
  server = await startTestServer({ authAttemptsPerMinute: 0 });
  ws = await newWorkspace(server);
});
afterAll(() => server.close());

describe("tokens, invites and roles an owner manages", () => {
  it("a harness's second token is listed with its last use; revoking it alone closes its socket and refuses it, the other token goes on", async () => {
    const h = await newHarness(server, ws, "two tokens");
    const minted = await admin("POST", `${wsPath()}/harnesses/${h.harness_id}/tokens`, {});
    expect(minted.status).toBe(201);
    const second: { token_id: string; token: string } = minted.body;
    expect((await tokensOf(h.harness_id)).find((t) => t.id === second.token_id)).toMatchObject({
      last_used_at: null,
      revoked: false,
    });

    const before = Date.now();
    expect((await request(`${server.url}/api/v1/me`, { token: second.token })).status).toBe(200);
    await until(
      async () => ((await tokensOf(h.harness_id)).find((t) => t.id === second.token_id)?.last_used_at ?? null) !== null,
      "last use recorded",
    );
    const used = (await tokensOf(h.harness_id)).find((t) => t.id === second.token_id)!;
    expect(Date.parse(used.last_used_at!)).toBeGreaterThanOrEqual(before - 1000);

    const first = await connect(`${server.url}/harness`, { auth: { token: h.token } });
    const other = await connect(`${server.url}/harness`, { auth: { token: second.token } });
    expect((await admin("DELETE", `${wsPath()}/tokens/${second.token_id}`)).status).toBe(200);
    await until(() => !other.connected, "the revoked token's socket closed");
    expect(first.connected).toBe(true);
    expect((await request(`${server.url}/api/v1/me`, { token: second.token })).status).toBe(401);
    expect((await request(`${server.url}/api/v1/me`, { token: h.token })).status).toBe(200);
    expect((await tokensOf(h.harness_id)).map((t) => t.revoked)).toEqual([false, true]);
    // Once revoked it is not found again; another workspace's owner cannot name it either.
    const again = await admin("DELETE", `${wsPath()}/tokens/${second.token_id}`);
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: "not_found", errors: [{ pointer: "/path/token" }] });
    first.disconnect();
  });

  it("a person's API token is listed under them and revocable alone: their session goes on", async () => {
    const [owner] = (await admin("GET", `${wsPath()}/access`)).body.people as { id: string; tokens: Token[] }[];
    expect(owner.id).toBe(ws.person_id);
    const room = await connect(server.url, { auth: { token: ws.person_token } });
    expect((await room.timeout(5000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: 0 })).ok).toBe(true);
    const told: string[] = [];
    room.on("revoked", () => told.push("revoked"));
    expect((await admin("DELETE", `${wsPath()}/tokens/${owner.tokens[0].id}`)).status).toBe(200);
    await until(() => !room.connected, "the token's room closed");
    expect(told).toEqual(["revoked"]);
    expect((await request(`${server.url}/api/v1/me`, { token: ws.person_token })).status).toBe(401);
    // The person is still there.
    expect(((await admin("GET", `${wsPath()}/people`)).body.people as { id: string }[]).map((p) => p.id)).toContain(
      ws.person_id,
    );
  });

  it("open invites are listed; a withdrawn one is gone from the list and its link goes to the login page", async () => {
    const made = await admin("POST", `${wsPath()}/invites`, { role: "member", single_use: false });
    const listed = (await admin("GET", `${wsPath()}/access`)).body.invites as {
      id: string;
      role: string;
      single_use: boolean;
    }[];
    expect(listed.find((i) => i.id === made.body.invite_id)).toMatchObject({ role: "member", single_use: false });
    expect((await admin("DELETE", `${wsPath()}/invites/${made.body.invite_id}`)).status).toBe(200);
    expect(
      ((await admin("GET", `${wsPath()}/access`)).body.invites as { id: string }[]).map((i) => i.id),
    ).not.toContain(made.body.invite_id);
    const code = new URL(made.body.url).searchParams.get("code")!;
    const res = await fetch(`${server.url}/invite?code=${code}&name=Late`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/login?error=invite_used");
    expect((await admin("DELETE", `${wsPath()}/invites/${made.body.invite_id}`)).status).toBe(404);
  });

  it("[HTTP4] an invite opened with a name holding U+0000 asks for the name again and is not spent", async () => {
    const made = await admin("POST", `${wsPath()}/invites`, { role: "member" });
    const code = new URL(made.body.url).searchParams.get("code")!;
    const bad = await fetch(`${server.url}/invite?code=${code}&name=Ne%00d`, { redirect: "manual" });
    expect(bad.status).toBe(303);
    expect(bad.headers.get("location")).toBe(`/invite?code=${encodeURIComponent(code)}&error=name`);
    const good = await fetch(`${server.url}/invite?code=${code}&name=Ned`, { redirect: "manual" });
    expect(good.status).toBe(303);
    expect(good.headers.get("location")).toBe(`/w/${ws.workspace_id}`);
  });

  it("an owner makes a member a viewer: the next write is refused at once and their open room is told, and stays", async () => {
    const m = await join("member", "Mo Member");
    const write = () =>
      request(`${server.url}/api/v1/events`, {
        method: "POST",
        headers: { cookie: m.cookie, origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({ ...message(ws, "from Mo"), actor: undefined }),
      });
    expect((await write()).status).toBe(201);
    const room = await connect(server.url, { extraHeaders: { cookie: m.cookie } });
    expect((await room.timeout(5000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: 0 })).ok).toBe(true);
    const roles: string[] = [];
    room.on("role", (r: { role: string }) => roles.push(r.role));

    const changed = await admin("PATCH", `${wsPath()}/people/${m.personId}`, { role: "viewer" });
    expect(changed.status).toBe(200);
    expect((await write()).status).toBe(403);
    await until(() => roles.length > 0, "the room told of the new role");
    expect(roles).toEqual(["viewer"]);
    expect(room.connected).toBe(true);
    // And back: a member again writes.
    expect((await admin("PATCH", `${wsPath()}/people/${m.personId}`, { role: "member" })).status).toBe(200);
    expect((await write()).status).toBe(201);
    room.disconnect();
  });

  it("GET /api/v1/me says a person's role as the server judges it, and follows a role change; a harness has none", async () => {
    const v = await join("viewer", "Vi Viewer");
    const me = () => request(`${server.url}/api/v1/me`, { headers: { cookie: v.cookie } });
    expect((await me()).body).toMatchObject({
      kind: "person",
      id: v.personId,
      workspace_id: ws.workspace_id,
      role: "viewer",
    });
    expect((await admin("PATCH", `${wsPath()}/people/${v.personId}`, { role: "member" })).status).toBe(200);
    expect((await me()).body.role).toBe("member");
    // (This file's workspace had its owner's person token revoked above: a fresh one.)
    const solo = await newWorkspace(server);
    const owner = await request(`${server.url}/api/v1/me`, { token: solo.person_token });
    expect(owner.body).toMatchObject({ kind: "person", id: solo.person_id, role: "owner" });
    const harness = await request(`${server.url}/api/v1/me`, { token: ws.token });
    expect(harness.body.kind).toBe("harness");
    expect(harness.body).not.toHaveProperty("role");
    expect(harness.body.spaces).toEqual([expect.objectContaining({ id: ws.space_id })]);
  });

  it("[ROLE1] two owners stepping down at the same moment, or revoked at once: one stays owner every time", async () => {
    for (let round = 0; round < 15; round++) {
      const w = await newWorkspace(server);
      const first = w.person_id as string;
      const second = (await join("owner", "Second", w.workspace_id)).personId;
      const person = (id: string) => `/api/v1/workspaces/${w.workspace_id}/people/${id}`;
      const [a, b] =
        round % 2
          ? await Promise.all([
              admin("PATCH", person(first), { role: "member" }),
              admin("PATCH", person(second), { role: "viewer" }),
            ])
          : await Promise.all([admin("DELETE", person(first)), admin("PATCH", person(second), { role: "member" })]);
      expect([a.status, b.status].sort(), `round ${round}: ${a.text} ${b.text}`).toEqual([200, 409]);
      const people = (await admin("GET", `/api/v1/workspaces/${w.workspace_id}/people`)).body.people as {
        role: string;
      }[];
      expect(
        people.filter((p) => p.role === "owner"),
        `round ${round}`,
      ).toHaveLength(1);
    }
  });

  it("bad role changes are refused and change nothing: an unknown role, someone unknown, the last owner stepping down", async () => {
    const m = await join("member", "Stays Member");
    const bad = await admin("PATCH", `${wsPath()}/people/${m.personId}`, { role: "king" });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("validation_failed");
    expect((await admin("PATCH", `${wsPath()}/people/usr_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { role: "viewer" })).status).toBe(
      404,
    );
    const solo = await newWorkspace(server);
    const last = await request(`${server.url}/api/v1/workspaces/${solo.workspace_id}/people/${solo.person_id}`, {
      method: "PATCH",
      token: server.adminToken,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ role: "member" }),
    });
    expect(last.status).toBe(409);
    expect(last.body).toMatchObject({ code: "invalid_transition", errors: [{ pointer: "/role" }] });
    const people = (await admin("GET", `${wsPath()}/people`)).body.people as { id: string; role: string }[];
    expect(people.find((p) => p.id === m.personId)?.role).toBe("member");
  });
});
