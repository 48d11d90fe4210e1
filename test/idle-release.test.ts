import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { message, newWorkspace, post, readEvents, request, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { socketHarness } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [SCL1] (docs/OPERATIONS.md): what a node keeps for a workspace between requests — the
 * writer's heads, cached credentials and sessions, rate buckets, harness presence and its
 * timers, the fan-out's last seq, the review index's timers — is let go once the workspace
 * has been quiet for CHIPS_WORKSPACE_IDLE seconds (1 here), and its next request works as
 * before. The counts come from the server's own `services.idle.held()`, in this process.
 */
let server: TestServer;
let ws: Workspace;
const held = () => server.chips.services.idle.held();
const nothingHeld = () => Object.values(held()).every((n) => n === 0);

/** A session cookie for the workspace's owner, from a one-time login link as a browser opens it. */
async function sessionCookie(): Promise<string> {
  const link = await request(`${server.url}/api/v1/admin/login-links`, {
    method: "POST",
    token: server.adminToken,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ workspace_id: ws.workspace_id, space_id: ws.space_id }),
  });
  expect(link.status).toBe(201);
  const opened = await fetch(new URL(new URL(link.body.url).pathname + new URL(link.body.url).search, server.url), {
    redirect: "manual",
  });
  expect(opened.status).toBe(303);
  return opened.headers.get("set-cookie")!.split(";")[0];
}

beforeAll(async () => {
  // One event a second: the harness's bucket stays part-spent (held) for a while after a post.
  server = await startTestServer({ workspaceIdleSeconds: 1, presenceGraceSeconds: 1, rateLimit: 1, rateBurst: 100 });
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());

describe("[SCL1] an idle workspace's state is released and comes back on the next request", () => {
  it("[SCL1] after the quiet period nothing is held for it — no heads, cache entry, presence or timer — and its next post, read and room work as before", async () => {
    // The sweep waits while the workspace is busy: on a loaded machine a second between two
    // steps here let it release the credential of the feed's sign-in before the count below.
    const idle = server.chips.services.idle;
    idle.stop();
    const cookie = await sessionCookie();
    const harness = socketHarness(server.url, ws.token);
    await harness.connected();
    const feed = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    await until(() => feed.statuses.includes("live"), "the room live");
    for (let i = 0; i < 3; i++) expect((await post(server, ws.token, message(ws, `busy #${i}`))).status).toBe(201);
    expect((await request(`${server.url}/api/v1/me`, { headers: { cookie } })).status).toBe(200);
    await until(() => feed.seqs.length === 3, "three events in the room");
    const busy = held();
    expect(busy).toMatchObject({ writerHeads: 1, hubHeads: 1, presence: 1, sessions: 1, rateBuckets: 1 });
    expect(busy.credentials).toBeGreaterThanOrEqual(2); // the harness's token and the person's

    feed.feed.stop();
    harness.socket.disconnect();
    idle.start();
    await until(nothingHeld, () => `nothing held; still ${JSON.stringify(held())}`);

    // Back: the writer reads its heads again, the credentials are looked up again.
    const next = await post(server, ws.token, message(ws, "after the quiet"));
    expect(next.status).toBe(201);
    expect(next.body.events[0].seq).toBe(4);
    expect((await readEvents(server, ws)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await request(`${server.url}/api/v1/me`, { headers: { cookie } })).status).toBe(200);
    const again = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    await until(() => again.seqs.length === 4, "the room catches up after the release");
    expect(again.seqs).toEqual([1, 2, 3, 4]);
    again.feed.stop();
  });

  it("[SCL1] a workspace with a room open keeps its fan-out state through the quiet period, and its next commit reaches the room once, in order", async () => {
    const before = (await readEvents(server, ws)).map((e) => e.seq);
    const feed = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    await until(() => feed.statuses.includes("live") && feed.seqs.length === before.length, "the room live");
    expect((await post(server, ws.token, message(ws, "into the open room"))).status).toBe(201);
    await until(() => feed.seqs.length === before.length + 1, "the next event in the room");
    // The writer's heads go after the quiet period: a sweep has passed it.
    await until(() => held().writerHeads === 0, "the writer's heads released");
    expect(held()).toMatchObject({ hubHeads: 1, peopleRooms: 1 });
    expect((await post(server, ws.token, message(ws, "after the writer let go"))).status).toBe(201);
    await until(() => feed.seqs.length === before.length + 2, "the one after in the room");
    expect(feed.seqs).toEqual([...before, before.length + 1, before.length + 2]);
    feed.feed.stop();
    await until(nothingHeld, () => `nothing held once the room closed; still ${JSON.stringify(held())}`);
  });
});
