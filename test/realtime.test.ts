import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io } from "socket.io-client";
import { newId } from "../lib/core/protocol";
import {
  serverWithWorkspace,
  message,
  newRoom as newRoomOf,
  newWorkspace,
  post,
  request,
  runStatus,
  startRun,
  type Workspace,
} from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 })));
afterAll(() => server?.close());

const spaceSeqs = async (spaceId: string) =>
  (
    await server.chips.services.database.query<{ seq: number }>(
      sql`select seq from events where space_id = ${spaceId} order by seq`,
    )
  ).map((r) => Number(r.seq));

const newRoom = (w: Workspace, name = "room") => newRoomOf(server, w, name);

describe("[RT1] join and live delivery", () => {
  it("[RT1] a join gets what the room is missing, then live events, in seq order, each once", async () => {
    const room = await newRoom(ws);
    await post(server, room.token, { events: [message(room, "1"), message(room, "2"), message(room, "3")] });
    const rec = recordingFeed(server.url, room.space_id, { token: room.person_token }, 1);
    await until(() => rec.statuses.includes("live"), "join");
    await post(server, room.token, message(room, "4"));
    await until(() => rec.seqs.length === 3, "three events");
    expect(rec.seqs).toEqual((await spaceSeqs(room.space_id)).slice(1));
    rec.feed.stop();
  });

  it("[RT1] events of other rooms are not sent, and each event carries its room's prev_seq", async () => {
    const a = await newRoom(ws, "a");
    const b = await newRoom(ws, "b");
    const rec = recordingFeed(server.url, a.space_id, { token: a.person_token });
    await until(() => rec.statuses.includes("live"), "join");
    await post(server, a.token, { events: [message(a, "a1"), message(b, "b1"), message(a, "a2")] });
    await until(() => rec.seqs.length === 2, "two events of room a");
    expect(rec.events.map((e) => e.space_id)).toEqual([a.space_id, a.space_id]);
    expect(rec.events[0].prev_seq).toBe(0);
    expect(rec.events[1].prev_seq).toBe(rec.events[0].seq);
    expect(rec.events[1].seq).toBe(rec.events[0].seq + 2); // b1 sits between them in the workspace
    rec.feed.stop();
  });

  it("[RT1] the join is refused for another workspace's space, and for a bad version", async () => {
    const other = await newWorkspace(server);
    const socket = io(server.url, { transports: ["websocket"], auth: { token: ws.person_token } });
    await until(() => socket.connected, "connect");
    expect(await socket.emitWithAck("join", { v: 1, space_id: other.space_id, after_seq: 0 })).toEqual({
      error: "space_not_found",
    });
    expect(await socket.emitWithAck("join", { v: 2, space_id: ws.space_id, after_seq: 0 })).toEqual({
      error: "unsupported_version",
    });
    expect(await socket.emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: -1 })).toEqual({
      error: "validation_failed",
    });
    const ok = await socket.emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: 0 });
    expect(ok.ok).toBe(true);
    socket.disconnect();
  });

  it("[RT1] a socket without a credential, or with a harness token, is refused", async () => {
    for (const auth of [{}, { token: ws.token }, { token: "nope" }]) {
      const socket = io(server.url, { transports: ["websocket"], auth, reconnection: false });
      const err = await new Promise<Error>((r) => socket.once("connect_error", r));
      expect(err.message).toBe("unauthorized");
      socket.disconnect();
    }
  });
});

describe("[RT2] reconnecting misses nothing", () => {
  it("[RT2] a client disconnected while others post rejoins from its last seq with no gap and no duplicate", async () => {
    const room = await newRoom(ws);
    const rec = recordingFeed(server.url, room.space_id, { token: room.person_token });
    await until(() => rec.statuses.includes("live"), "join");
    await post(server, room.token, message(room, "before"));
    await until(() => rec.seqs.length === 1, "first");
    rec.feed.socket.disconnect();
    for (let i = 0; i < 20; i++) await post(server, room.token, message(room, `while away ${i}`));
    rec.feed.socket.connect();
    await post(server, room.token, message(room, "after"));
    const want = await spaceSeqs(room.space_id);
    await until(() => rec.seqs.length >= want.length, "all events");
    expect(rec.seqs).toEqual(want);
    rec.feed.stop();
  });
});

describe("[RT4] gaps and long absences", () => {
  it("[RT4] a join more than 1,000 behind gets the room snapshot and the newest page; older history pages on request", async () => {
    const room = await newRoom(ws);
    const runId = await startRun(server, room, { space_id: room.space_id });
    for (let b = 0; b < 3; b++) {
      await post(server, room.token, {
        events: Array.from({ length: 500 }, (_, i) => runStatus(room, runId, { verb_phrase: `b${b}-${i}` })),
      });
    }
    const all = await spaceSeqs(room.space_id);
    const rec = recordingFeed(server.url, room.space_id, { token: room.person_token });
    await until(() => rec.snapshots.length === 1, "snapshot");
    const snap = rec.snapshots[0];
    expect(snap.events.map((e) => e.seq)).toEqual(all.slice(-1000));
    expect(snap.runs.map((r) => r.id)).toEqual([runId]);
    expect(snap.runs[0].status).toMatchObject({ verb_phrase: "b2-499" });
    const older = await rec.feed.older(snap.events[0].seq, 1000);
    expect(older.map((e) => e.seq)).toEqual(all.slice(-2000, -1000));
    const oldest = await rec.feed.older(older[0].seq, 1000);
    expect(oldest.map((e) => e.seq)).toEqual(all.slice(0, -2000));
    rec.feed.stop();
  });

  it("[RT4] a join more than 1,000 seqs behind a room that missed exactly 1,000 of them gets those events, not a snapshot", async () => {
    const a = await newRoom(ws, "a");
    const b = await newRoom(ws, "b");
    const batch = (r: Workspace, tag: string) => ({
      events: Array.from({ length: 500 }, (_, i) => message(r, `${tag}${i}`)),
    });
    await post(server, a.token, batch(a, "a-"));
    await post(server, b.token, batch(b, "b-")); // the workspace's seqs move on, room a's do not
    await post(server, a.token, batch(a, "a+"));
    const all = await spaceSeqs(a.space_id);
    expect(all.at(-1)! - all[0]).toBeGreaterThan(1000);
    const rec = recordingFeed(server.url, a.space_id, { token: a.person_token });
    await until(() => rec.statuses.includes("live"), "join");
    await until(() => rec.seqs.length === 1000, "1,000 events");
    expect(rec.snapshots).toEqual([]);
    expect(rec.seqs).toEqual(all);
    rec.feed.stop();
  });

  it("[RT4] history of another workspace's space, one holding events, answers like a missing space; an empty page of its own is ok", async () => {
    const other = await newWorkspace(server);
    await post(server, other.token, message(other, "not yours"));
    const mine = await newRoom(ws, "quiet");
    const socket = io(server.url, { transports: ["websocket"], auth: { token: ws.person_token } });
    await until(() => socket.connected, "connect");
    const ask = (space_id: string) => socket.emitWithAck("history", { space_id, before_seq: null, limit: 10 });
    expect(await ask(other.space_id)).toEqual({ error: "space_not_found" });
    expect(await ask(newId("space"))).toEqual({ error: "space_not_found" });
    expect(await ask(mine.space_id)).toEqual({ ok: true, events: [] });
    socket.disconnect();
  });

  it("[RT4] a client whose last seq differs from an event's prev_seq joins again and fills the hole", async () => {
    const room = await newRoom(ws);
    await post(server, room.token, { events: [message(room, "1"), message(room, "2")] });
    const [first, second] = await spaceSeqs(room.space_id);
    // A client that claims to hold only the first event, then is sent the third: prev_seq shows the hole.
    const rec = recordingFeed(server.url, room.space_id, { token: room.person_token }, second);
    await until(() => rec.statuses.includes("live"), "join");
    (rec.feed as unknown as { last: number }).last = first; // as if event `second` had been lost
    await post(server, room.token, message(room, "3"));
    const want = await spaceSeqs(room.space_id);
    await until(() => rec.seqs.includes(want[2]), "third event");
    expect(rec.seqs).toEqual(want.slice(1));
    rec.feed.stop();
  });
});

describe("people sessions", () => {
  it("a login link works once, becomes an httpOnly SameSite=Lax cookie, and the cookie opens the room's socket", async () => {
    const w = await newWorkspace(server);
    const link = new URL(w.room_url);
    expect(link.searchParams.get("login")).toBeTruthy();
    const first = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe(link.pathname);
    const setCookie = first.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^chips_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax/);
    const again = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: "manual" });
    expect(again.headers.get("location")).toBe("/login?error=link_used");
    const cookie = setCookie.split(";")[0];

    const rec = recordingFeed(server.url, w.space_id, { cookie });
    await until(() => rec.statuses.includes("live"), "join with the session cookie");
    // A person writes with the session: the server sets actor; the Origin must be ours.
    const { actor: _a, ...msg } = message(w, "from the browser");
    const ok = await post(server, undefined, msg, { cookie, origin: server.url });
    expect(ok.status).toBe(201);
    expect(ok.body.events[0].actor).toEqual({ kind: "person", id: w.person_id });
    await until(() => rec.seqs.length === 1, "the person's message live");
    const cross = await post(
      server,
      undefined,
      { ...msg, id: newId("event"), idempotency_key: "x-site" },
      { cookie, origin: "https://evil.example" },
    );
    expect(cross.status).toBe(403);
    const noOrigin = await post(
      server,
      undefined,
      { ...msg, id: newId("event"), idempotency_key: "no-origin" },
      { cookie },
    );
    expect(noOrigin.status).toBe(403);
    // The session belongs to its workspace only.
    expect(
      (await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/events`, { headers: { cookie } })).status,
    ).toBe(403);
    rec.feed.stop();
  });

  it("a login link from the admin API (chips login) works once too", async () => {
    const w = await newWorkspace(server);
    const r = await request(`${server.url}/api/v1/admin/login-links`, {
      method: "POST",
      token: server.adminToken,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ workspace_id: w.workspace_id }),
    });
    expect(r.status).toBe(201);
    const link = new URL(r.body.url);
    const first = await fetch(`${server.url}${link.pathname}${link.search}`, { redirect: "manual" });
    expect(first.headers.get("set-cookie")).toContain("chips_session=");
    expect(first.headers.get("location")).toBe(`/w/${w.workspace_id}`);
    const bad = await request(`${server.url}/api/v1/admin/login-links`, {
      method: "POST",
      token: w.person_token,
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(bad.status).toBe(403);
  });
});
