import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEOPLE_THROTTLE_MS } from "../lib/server/realtime/people";
import { request, serverWithWorkspace, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { watchPeople } from "./support/people";
import type { TestServer } from "./support/server";

/**
 * The people list of a room that many different people open ([RT1]'s room, [RT5]). Every join
 * changes the list. The whole list went to every socket in the room on every change: N people
 * cost N² frames; then at most once per throttle window, still the whole list each time, so
 * each socket received O(N) people per window — N² people as the joins went on. A room is
 * now told what changed (who came, who went), at most once per window: each person reaches
 * each socket about once. Real Socket.IO clients, each a different person (a session from a
 * multi-use invite), against a real server.
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 })));
afterAll(() => server?.close());

/** N people with a cookie each, from one multi-use invite (a few sign-ins at a time). */
async function people(n: number): Promise<{ id: string; cookie: string }[]> {
  const made = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/invites`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ role: "viewer", single_use: false }),
  });
  const code = new URL(made.body.url as string).searchParams.get("code");
  const one = async (i: number) => {
    const res = await fetch(`${server.url}/invite?code=${code}&name=P${i}`, { redirect: "manual" });
    const cookie = res.headers.get("set-cookie")!.split(";")[0];
    const me = await request(`${server.url}/api/v1/me`, { headers: { cookie } });
    return { id: me.body.id as string, cookie };
  };
  const out: { id: string; cookie: string }[] = [];
  for (let i = 0; i < n; i += 8)
    out.push(...(await Promise.all(Array.from({ length: Math.min(8, n - i) }, (_, k) => one(i + k)))));
  return out;
}

function connect(auth: { cookie: string } | { token: string }): Promise<Socket> {
  const s = io(server.url, {
    path: "/socket.io",
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    ...("cookie" in auth ? { extraHeaders: { cookie: auth.cookie } } : { auth: { token: auth.token } }),
  });
  return new Promise((resolve, reject) => (s.once("connect", () => resolve(s)), s.once("connect_error", reject)));
}

const join = (s: Socket, spaceId: string) =>
  s.timeout(30_000).emitWithAck("join", { v: 1, space_id: spaceId, after_seq: 0 });

describe("[RT1] [RT5] who is in a room, when many people open it", () => {
  it("[RT1] 40 different people join together: each socket gets a few people frames, not one per join, and all end with all 40", async () => {
    const N = 40;
    const everyone = await people(N);
    const sockets = await Promise.all(everyone.map((p) => connect(p)));
    const seen = sockets.map((s) => watchPeople(s, ws.space_id));
    const all = everyone.map((p) => p.id).sort();
    const t0 = performance.now();
    const joined = await Promise.all(sockets.map((s) => join(s, ws.space_id)));
    expect(joined.every((r) => r.ok)).toBe(true);
    await until(() => seen.every((w) => w.ids().join() === all.join()), "every socket told all 40");
    const elapsed = performance.now() - t0;
    // Room frames are at least a window apart (the first at once), plus the one each joiner
    // is told at once: a bound from the windows that passed, however slow the machine was.
    // One frame per join would give the first socket 40.
    const bound = 2 + Math.floor(elapsed / PEOPLE_THROTTLE_MS);
    expect(Math.max(...seen.map((w) => w.frames))).toBeLessThanOrEqual(bound);
    for (const s of sockets) s.disconnect();
  });

  it("[RT5] people joining a room in waves: a socket there all along is told each of them about once — 4× the people, 4× the people named, not 16×", async () => {
    const WAVE = 25;
    const everyone = await people(200);
    /** The room's first socket (its owner), then `n` people in waves, each wave once the owner was told the one before. */
    async function room(n: number) {
      const made = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/spaces`, {
        method: "POST",
        token: ws.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: `waves of ${n}` }),
      });
      const spaceId = made.body.id as string;
      const owner = await connect({ token: ws.person_token });
      const there = watchPeople(owner, spaceId);
      expect((await join(owner, spaceId)).ok).toBe(true);
      const sockets = await Promise.all(everyone.slice(0, n).map((p) => connect(p)));
      const seen = sockets.map((s) => watchPeople(s, spaceId));
      for (let i = 0; i < n; i += WAVE) {
        const wave = sockets.slice(i, i + WAVE);
        expect((await Promise.all(wave.map((s) => join(s, spaceId)))).every((r) => r.ok)).toBe(true);
        await until(() => there.view.size === 1 + i + wave.length, `the owner told of ${i + wave.length} people`);
      }
      // Everyone, joiners too, ends with the whole list.
      const all = [...there.view.keys()].sort().join();
      await until(() => seen.every((w) => w.ids().join() === all), "every joiner holds the whole list");
      for (const s of [owner, ...sockets]) s.disconnect();
      return there;
    }
    const small = await room(50);
    const large = await room(200);
    // The owner's own join (its list: itself), then each person once: linear. The whole list
    // per window named 110 people for 50 and 1,305 for 200 (12×).
    expect(small.named).toBe(1 + 50);
    expect(large.named).toBe(1 + 200);
    // In about one frame per wave, not one per join.
    expect(large.frames).toBeLessThan(200 / 4);
  });
});
