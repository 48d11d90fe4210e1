import fs from "node:fs";
import { io, type Socket } from "socket.io-client";
import { afterAll, describe, expect, it } from "vitest";
import { message, newHarness, newWorkspace, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { watchPeople } from "./support/people";
import { freshDatabase, spawnServer, type ServerProcess } from "./support/server";

const procs: ServerProcess[] = [];
afterAll(() => procs.forEach((p) => p.proc.kill("SIGKILL")));

function connect(url: string, opts: Parameters<typeof io>[1]): Promise<Socket> {
  const s = io(url, { path: "/socket.io", transports: ["websocket"], reconnection: false, forceNew: true, ...opts });
  return new Promise((resolve, reject) => (s.once("connect", () => resolve(s)), s.once("connect_error", reject)));
}

// An owner on node A changes someone's access; their sockets and requests on node B follow (docs/ROLES.md).
describe("access changes reach every node on one Postgres", () => {
  it("a token revoked on node A closes its socket on node B; a role changed on A is told to the room on B and judged there", async () => {
    const db = await freshDatabase();
    const env = (i: number) => ({
      DATABASE_URL: db.databaseUrl!,
      CHIPS_DATA_DIR: `${db.dataDir}/n${i}`,
      CHIPS_RATE_LIMIT: "0",
    });
    const [a, b] = await Promise.all([spawnServer(env(1)), spawnServer(env(2))]);
    procs.push(a, b);
    const adminToken = fs.readFileSync(`${db.dataDir}/n1/admin-token`, "utf8").trim();
    const server = { url: a.url, adminToken } as never;
    const ws: Workspace = await newWorkspace(server);
    const admin = (method: string, path: string, body?: unknown) =>
      request(`${a.url}/api/v1/workspaces/${ws.workspace_id}${path}`, {
        method,
        token: adminToken,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    // A harness with two tokens, both connected to B; one is revoked through A.
    const h = await newHarness(server, ws, "two tokens");
    const second = (await admin("POST", `/harnesses/${h.harness_id}/tokens`, {})).body as {
      token_id: string;
      token: string;
    };
    const kept = await connect(`${b.url}/harness`, { auth: { token: h.token } });
    const gone = await connect(`${b.url}/harness`, { auth: { token: second.token } });
    expect((await admin("DELETE", `/tokens/${second.token_id}`)).status).toBe(200);
    await until(() => !gone.connected, "the revoked token's socket on B closed");
    expect(kept.connected).toBe(true);
    expect((await request(`${b.url}/api/v1/me`, { token: second.token })).status).toBe(401);

    // A member with a room open on B becomes a viewer through A.
    const made = (await admin("POST", "/invites", { role: "member" })).body as { url: string };
    const res = await fetch(`${b.url}/invite?code=${new URL(made.url).searchParams.get("code")}&name=Mo`, {
      redirect: "manual",
    });
    const cookie = res.headers.get("set-cookie")!.split(";")[0];
    const me = (await request(`${b.url}/api/v1/me`, { headers: { cookie } })).body as { id: string };
    const write = () =>
      request(`${b.url}/api/v1/events`, {
        method: "POST",
        headers: { cookie, origin: b.url, "content-type": "application/json" },
        body: JSON.stringify({ ...message(ws, "from Mo"), actor: undefined }),
      });
    expect((await write()).status).toBe(201); // B now holds Mo's session in its cache
    const room = await connect(b.url, { extraHeaders: { cookie } });
    expect((await room.timeout(5000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: 0 })).ok).toBe(true);
    const roles: string[] = [];
    room.on("role", (r: { role: string }) => roles.push(r.role));
    expect((await admin("PATCH", `/people/${me.id}`, { role: "viewer" })).status).toBe(200);
    await until(() => roles.length > 0, "the room on B told of the new role");
    expect(roles).toEqual(["viewer"]);
    expect((await write()).status).toBe(403);
    expect(room.connected).toBe(true);
    for (const s of [kept, room]) s.disconnect();
    await db.drop();
  });

  it(
    "the room shows who is present on every node: a node started later learns it, a leave is seen, a node that dies drops out",
    { timeout: 180_000 },
    async () => {
      // A grace of 1.5 s: each node repeats its lists every 0.5 s, and a silent node is dropped after 1.5 s.
      const r = await roomOnTwoNodes("1.5");
      // Vi leaves the room on B, then comes back.
      r.onB.emit("leave", { v: 1, space_id: r.ws.space_id });
      await until(() => r.fromA.ids().join() === r.owner, "A sees Vi leave");
      await r.join(r.onB);
      await until(() => r.fromA.ids().join() === r.both.join(), "A sees Vi back");

      // B dies without a word: A drops its people once B has been silent past the grace.
      r.b.proc.kill("SIGKILL");
      await until(() => r.fromA.ids().join() === r.owner, "A drops the dead node's people");
      r.onA.disconnect();
      await r.db.drop();
    },
  );

  it("a node shut down drops its people from the other nodes' rooms at once, not a grace later, and logs no error", async () => {
    // The default grace (30 s): a node that went silent would stay listed that long.
    const r = await roomOnTwoNodes("30");
    r.b.proc.kill("SIGTERM");
    expect(await r.b.exited).toBe(0);
    await until(() => r.fromA.ids().join() === r.owner, "A drops the people of the node that shut down", 10_000);
    const errors = r.b
      .output()
      .split("\n")
      .filter((l) => /"level":(50|60)/.test(l));
    expect(errors, "B's shutdown logged no error").toEqual([]);
    r.onA.disconnect();
    await r.db.drop();
  });
});

/**
 * One workspace on two nodes of one Postgres: its owner has the room open on A (before B
 * exists), Vi (a viewer) on B; resolves once both nodes list both people.
 */
async function roomOnTwoNodes(graceSeconds: string) {
  const db = await freshDatabase();
  const env = (i: number) => ({
    DATABASE_URL: db.databaseUrl!,
    CHIPS_DATA_DIR: `${db.dataDir}/n${i}`,
    CHIPS_RATE_LIMIT: "0",
    CHIPS_PRESENCE_GRACE: graceSeconds,
  });
  const a = await spawnServer(env(1));
  procs.push(a);
  const adminToken = fs.readFileSync(`${db.dataDir}/n1/admin-token`, "utf8").trim();
  const ws: Workspace = await newWorkspace({ url: a.url, adminToken } as never);
  const made = (
    await request(`${a.url}/api/v1/workspaces/${ws.workspace_id}/invites`, {
      method: "POST",
      token: adminToken,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ role: "viewer" }),
    })
  ).body as { url: string };
  const opened = await fetch(`${a.url}/invite?code=${new URL(made.url).searchParams.get("code")}&name=Vi`, {
    redirect: "manual",
  });
  const cookie = opened.headers.get("set-cookie")!.split(";")[0];
  const vi = ((await request(`${a.url}/api/v1/me`, { headers: { cookie } })).body as { id: string }).id;
  const owner = ((await request(`${a.url}/api/v1/me`, { token: ws.person_token })).body as { id: string }).id;

  const seen = (s: Socket) => watchPeople(s, ws.space_id);
  const join = async (s: Socket) =>
    expect((await s.timeout(5000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: 0 })).ok).toBe(true);
  const both = [owner, vi].sort();

  const onA = await connect(a.url, { auth: { token: ws.person_token } });
  const fromA = seen(onA);
  await join(onA);
  await until(() => fromA.ids().join() === owner, "A lists its owner");
  const b = await spawnServer(env(2));
  procs.push(b);
  const onB = await connect(b.url, { extraHeaders: { cookie } });
  const fromB = seen(onB);
  await join(onB);
  await until(() => fromB.ids().join() === both.join(), "B lists the owner on A too");
  await until(() => fromA.ids().join() === both.join(), "A lists Vi on B");
  return { db, a, b, ws, owner, both, onA, onB, fromA, join };
}
