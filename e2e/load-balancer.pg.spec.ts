import { request as apiRequest, type APIRequestContext } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { RoomFeed, type FeedStatus } from "../lib/browser/room-feed";
import { test, expect } from "./support/fixtures";
import { Admin, Harness, linkPath, type StoredEvent, type Workspace } from "./support/api";
import { startOwnServer, type OwnServer } from "./support/own-server";
import { RoomPage } from "./support/room-page";
import { RunPanelView } from "./support/run-panel";
import { TestRun } from "./support/runs";
import { RawRunner } from "./support/raw-runner";
import { verifyLease } from "../lib/core/protocol/runner-lease";
import { freePort, startHaproxy, type ReverseProxy } from "../test/support/reverse-proxy";

/**
 * [SCL2] Chips as a team deploys it: two nodes on one PostgreSQL behind a real HAProxy
 * (docs/OPERATIONS.md's recipe: round robin, sticky by HAProxy's `SERVERID` cookie, readiness
 * checks, redispatch), a real Chromium room and Socket.IO clients over WebSocket and over
 * HTTP long-polling connected through it. Node n1 is killed (SIGKILL) while a harness posts
 * through the proxy: every client of n1 reconnects through HAProxy to n2 and catches up, and
 * no client, nor the log, loses, reorders or repeats an event; the harness's socket moves
 * too, and a Pause clicked afterwards reaches it and is applied; a runner that held a run's
 * lease on n1 says hello on another node, which signs with the same key, and renews it there.
 *
 * Clients are pinned to a node by sending the cookie HAProxy would have set (`SERVERID=n1`),
 * so the test knows whom the kill hits; one polling client gets its cookie from HAProxy itself.
 * `CHIPS_LB_NODES=3` runs it with three nodes (n1's clients then spread over n2 and n3).
 */
const NODES = Number(process.env.CHIPS_LB_NODES || 2);
const nodes: OwnServer[] = [];
let proxy: ReverseProxy;
let publicUrl: string;
let api: APIRequestContext;
test.beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://localhost:${port}`;
  const env = { CHIPS_PUBLIC_URL: publicUrl, CHIPS_TRUSTED_PROXIES: "127.0.0.1/32" };
  for (let i = 0; i < NODES; i++) nodes.push(await startOwnServer(env));
  proxy = await startHaproxy(
    nodes.map((n) => n.baseURL),
    { port, balance: true },
  );
  api = await apiRequest.newContext({ baseURL: nodes[1].baseURL });
});
test.afterAll(async () => {
  await api?.dispose();
  await proxy?.stop();
  for (const n of nodes) await n.stop();
});

/** A room feed from Node through the proxy, recording what it delivers and how its connection went. */
function feed(ws: Workspace, transport: "websocket" | "polling", node?: "n1" | "n2") {
  const seqs: number[] = [];
  const statuses: FeedStatus[] = [];
  const f = new RoomFeed({
    url: proxy.url,
    spaceId: ws.space_id,
    token: ws.person_token,
    transports: [transport],
    headers: node ? { cookie: `SERVERID=${node}` } : undefined,
    onEvents: (es) => seqs.push(...es.map((e) => e.seq)),
    onSnapshot: (s) => seqs.splice(0, seqs.length, ...s.events.map((e) => e.seq)),
    onStatus: (s) => statuses.push(s),
  });
  return { name: `${transport}${node ? ` on ${node}` : " (HAProxy's cookie)"}`, feed: f, seqs, statuses, node };
}

/**
 * A harness posting one message per request through the proxy with no cookie (round robin over
 * the nodes), each retried with the same bytes until it is answered — as the SDK does — so a
 * request cut by the kill is stored once or answered as the replay it is.
 */
async function postThrough(ws: Workspace, body: Record<string, unknown>): Promise<StoredEvent> {
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await fetch(`${proxy.url}/api/v1/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${ws.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (r.status === 200 || r.status === 201) return ((await r.json()) as { events: StoredEvent[] }).events[0];
      if (![502, 503, 504].includes(r.status) || attempt > 50) throw new Error(`post answered ${r.status}`);
    } catch (e) {
      if (attempt > 50 || (e as Error).message.startsWith("post answered")) throw e;
    }
  }
}

test(`[SCL2] ${NODES} nodes behind HAProxy: a node killed mid-stream — its browser room, WebSocket and polling clients, its harness and a runner holding a lease reconnect through HAProxy to another node, nothing lost or repeated, the lease renews there, and the Pause button still reaches the harness`, async ({
  page,
  context,
}) => {
  test.setTimeout(180_000);
  const ws = await new Admin(api, nodes[1].adminToken).newWorkspace({ owner: "Dana" });

  // The browser on n1, and clients of every kind on each node.
  await context.addCookies([{ name: "SERVERID", value: "n1", url: publicUrl }]);
  const link = await api.post("/api/v1/admin/login-links", {
    headers: { authorization: `Bearer ${nodes[1].adminToken}` },
    data: { workspace_id: ws.workspace_id, space_id: ws.space_id },
  });
  const room = await new RoomPage(page).open(publicUrl + linkPath(((await link.json()) as { url: string }).url));
  const feeds = [
    feed(ws, "websocket", "n1"),
    feed(ws, "polling", "n1"),
    feed(ws, "websocket", "n2"),
    feed(ws, "polling", "n2"),
    feed(ws, "polling"),
  ];
  const commands: { command_id: string; command: string }[] = [];
  let connects = 0;
  const harness: Socket = io(`${proxy.url}/harness`, {
    transports: ["websocket"],
    auth: { token: ws.token },
    extraHeaders: { cookie: "SERVERID=n1" },
    reconnectionDelay: 200,
    forceNew: true,
  });
  harness.on("connect", () => connects++);
  harness.on("command", (c: { command_id: string; command: string }, ack?: () => void) => {
    commands.push(c);
    ack?.();
  });
  await expect.poll(() => connects, { message: "the harness connected through HAProxy" }).toBe(1);
  for (const f of feeds) await expect.poll(() => f.statuses.at(-1), { message: f.name }).toBe("live");

  // A runner on n1 holding the lease of a run a person queued (on n2) in a room of its own.
  const made = await api.post(`/api/v1/workspaces/${ws.workspace_id}/spaces`, {
    headers: { authorization: `Bearer ${ws.person_token}` },
    data: { name: "runs" },
  });
  expect(made.status(), await made.text()).toBe(201);
  const runsRoom = ((await made.json()) as { id: string }).id;
  const runner = await RawRunner.create(api, nodes[1].adminToken, ws);
  const hello = await runner.connect({}, { url: proxy.url, headers: { cookie: "SERVERID=n1" }, reconnect: true });
  const queued = await api.post("/api/v1/runs", {
    headers: { authorization: `Bearer ${ws.person_token}` },
    data: {
      space_id: runsRoom,
      prompt: "Hold on across nodes",
      repository: "demo-repo",
      idempotency_key: `lb-${Date.now()}`,
    },
  });
  expect(queued.status(), await queued.text()).toBe(201);
  const leased = ((await queued.json()) as { run_id: string }).run_id;
  const start = await runner.startOf(leased);
  const first = verifyLease(hello.lease_public_key, start, runner.id);
  expect(first.ok, JSON.stringify(first)).toBe(true);
  await runner.post(
    runner.event(leased, "run.started", { space_id: runsRoom, goal: "Hold on across nodes", goal_from: "chips" }),
  );

  // The stream: 300 posts through the proxy; n1 dies after the 100th is answered.
  const writer = new Harness(api, ws);
  const acked: StoredEvent[] = [];
  const stream = (async () => {
    for (let i = 0; i < 300; i++) acked.push(await postThrough(ws, writer.message(`through the balancer ${i + 1}`)));
  })();
  await expect.poll(() => acked.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(100);
  await nodes[0].kill();
  await stream;
  // HAProxy's readiness checks took n1 out of rotation.
  await expect
    .poll(async () => (await proxy.states()).map((n) => `${n.name} ${n.status}`))
    .toEqual(nodes.map((_, i) => `n${i + 1} ${i === 0 ? "DOWN" : "UP"}`));

  // The log: seqs 1..N with no hole (the queued run's events among them, in their own room),
  // each of the harness's 300 once; the room's clients hold exactly the room's events.
  const stored = await writer.events();
  expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: stored.length }, (_, i) => i + 1));
  const inRoom = stored.filter((e) => e.space_id === ws.space_id);
  expect(inRoom).toHaveLength(300);
  expect(new Set(inRoom.map((e) => e.idempotency_key)).size).toBe(300);
  expect(acked.map((e) => e.seq)).toEqual(inRoom.map((e) => e.seq));
  const seqs = inRoom.map((e) => e.seq);
  for (const f of feeds) await expect.poll(() => f.seqs, { message: f.name, timeout: 30_000 }).toEqual(seqs);
  // The kill hit n1's clients (they reconnected), not n2's.
  for (const f of feeds.filter((x) => x.node))
    expect(f.statuses.includes("reconnecting"), `${f.name} reconnected`).toBe(f.node === "n1");
  await room.expectSeqs(seqs, 60_000);

  // The runner moved too: it said hello on another node, which knows the same lease key, and its
  // lease renews there — the run stays its own, running, and takes its events.
  await expect.poll(() => runner.hellos.length, { message: "the runner said hello again" }).toBe(2);
  expect(runner.hellos[1]).toMatchObject({ ok: true, runner_id: runner.id, lease_public_key: hello.lease_public_key });
  const renewed = await runner.renew(leased);
  expect(renewed.ok, JSON.stringify(renewed)).toBe(true);
  const again = verifyLease(
    hello.lease_public_key,
    { ...start, lease: (renewed as { lease: typeof start.lease }).lease },
    runner.id,
  );
  expect(again.ok, JSON.stringify(again)).toBe(true);
  if (first.ok && again.ok)
    expect(Date.parse(again.claims.expires_at)).toBeGreaterThan(Date.parse(first.claims.expires_at));
  const log = { space_id: runsRoom, sequence: 1, kind: "log", occurred_at: new Date().toISOString() };
  await runner.post(runner.event(leased, "runner.event", { ...log, message: "still going after the node died" }));
  const held = await api.get(`/api/v1/runs/${leased}`, { headers: { authorization: `Bearer ${ws.person_token}` } });
  expect(await held.json()).toMatchObject({ state: "running" });
  runner.close();

  // The harness's socket moved to another node; a run's Pause, clicked in the browser (moved too), reaches it.
  await expect.poll(() => connects, { message: "the harness reconnected through HAProxy" }).toBe(2);
  const run = new TestRun(new Harness(api, ws), ws);
  await run.start({ goal: "Keep going across nodes", commands: ["pause", "resume", "cancel"] });
  const panel = new RunPanelView(page, run.id);
  await expect(panel.root).toHaveAttribute("data-presence", "online");
  await panel.button("run-pause").click();
  await expect.poll(() => commands.map((c) => c.command)).toEqual(["pause"]);
  await run.ack(commands[0].command_id);
  await expect(panel.root.locator('[data-receipt="applied"]', { hasText: "paused the run" })).toBeVisible();

  harness.disconnect();
  for (const f of feeds) f.feed.stop();
});
