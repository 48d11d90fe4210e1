import { io, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEOPLE_THROTTLE_MS } from "../lib/server/realtime/people";
import { request, serverWithWorkspace, type Workspace } from "./support/api";
import { until } from "./support/feed";
import type { TestServer } from "./support/server";

/**
 * The people list of a room that many different people open at once ([RT1]'s room). Every
 * join changes the list, and the list went to every socket in the room on every change: N
 * people cost N² frames. A room is now told at most once per throttle window (the first
 * change at once), so what each socket receives is bounded by the windows the joins took.
 * Real Socket.IO clients, each a different person (a session from a multi-use invite),
 * against a real server.
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 })));
afterAll(() => server?.close());

/** N people with a cookie each, from one multi-use invite. */
async function people(n: number): Promise<{ id: string; cookie: string }[]> {
  const made = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/invites`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ role: "viewer", single_use: false }),
  });
  const code = new URL(made.body.url as string).searchParams.get("code");
  const out: { id: string; cookie: string }[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.url}/invite?code=${code}&name=P${i}`, { redirect: "manual" });
    const cookie = res.headers.get("set-cookie")!.split(";")[0];
    const me = await request(`${server.url}/api/v1/me`, { headers: { cookie } });
    out.push({ id: me.body.id as string, cookie });
  }
  return out;
}

function connect(cookie: string): Promise<Socket> {
  const s = io(server.url, {
    path: "/socket.io",
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    extraHeaders: { cookie },
  });
  return new Promise((resolve, reject) => (s.once("connect", () => resolve(s)), s.once("connect_error", reject)));
}

describe("[RT1] who is in a room, when many people open it at once", () => {
  it("[RT1] 40 different people join together: each socket gets a few people frames, not one per join, and all end with all 40", async () => {
    const N = 40;
    const everyone = await people(N);
    const sockets = await Promise.all(everyone.map((p) => connect(p.cookie)));
    const frames: string[][][] = sockets.map(() => []);
    sockets.forEach((s, i) =>
      s.on("people", (m: { space_id: string; people: { id: string }[] }) => {
        if (m.space_id === ws.space_id) frames[i].push(m.people.map((p) => p.id).sort());
      }),
    );
    const all = everyone.map((p) => p.id).sort();
    const t0 = performance.now();
    const joined = await Promise.all(
      sockets.map((s) => s.timeout(30_000).emitWithAck("join", { v: 1, space_id: ws.space_id, after_seq: 0 })),
    );
    expect(joined.every((r) => r.ok)).toBe(true);
    await until(() => frames.every((f) => f.at(-1)?.join() === all.join()), "every socket told all 40");
    const elapsed = performance.now() - t0;
    // Room frames are at least a window apart (the first at once), plus the one each joiner
    // is told at once: a bound from the windows that passed, however slow the machine was.
    // One frame per join would give the first socket 40.
    const bound = 2 + Math.floor(elapsed / PEOPLE_THROTTLE_MS);
    const counts = frames.map((f) => f.length);
    expect(Math.max(...counts)).toBeLessThanOrEqual(bound);
    for (const s of sockets) s.disconnect();
  });
});
