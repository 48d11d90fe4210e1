import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { message, newWorkspace, post, readEvents, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => {
  // A low bound so a few megabytes fill it; a reading client never holds more than a commit or two.
  server = await startTestServer({ rateLimit: 0, socketMaxBufferedBytes: 2 * 1024 * 1024 });
  ws = await newWorkspace(server);
  // Heartbeats far apart, so only the bound can drop the paused client however slow the machine is.
  server.chips.io.engine.opts.pingInterval = 300_000;
});
afterAll(() => server?.close());

/** The TCP socket under a Node socket.io-client's WebSocket. */
function tcpOf(feed: ReturnType<typeof recordingFeed>["feed"]): net.Socket {
  const ws: unknown = Reflect.get(feed.socket.io.engine.transport, "ws");
  const tcp: unknown = ws && typeof ws === "object" ? Reflect.get(ws, "_socket") : null;
  if (!(tcp instanceof net.Socket)) throw new Error("no TCP socket under the feed");
  return tcp;
}

// PostgreSQL only: megabytes of posts to fill the kernel buffers; the bound itself is storage-agnostic.
describe("[RT2] a client that stops reading", () => {
  it("[RT2] is dropped to catch-up instead of buffered without limit, then gets every event once, in order", async () => {
    const slow = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    const steady = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    await until(() => slow.statuses.includes("live") && steady.statuses.includes("live"), "both live");
    const onServer = server.chips.io.sockets.sockets.get(slow.feed.socket.id!);
    const steadyOnServer = server.chips.io.sockets.sockets.get(steady.feed.socket.id!);
    expect(onServer && steadyOnServer).toBeTruthy();
    const reasons: string[] = [];
    const steadyReasons: string[] = [];
    onServer!.on("disconnect", (r) => reasons.push(r));
    steadyOnServer!.on("disconnect", (r) => steadyReasons.push(r));

    const tcp = tcpOf(slow.feed);
    tcp.pause(); // reads nothing more: the kernel's buffers fill, then the server's
    const big = "x".repeat(60_000);
    for (let i = 0; !reasons.length; i++) {
      if (i === 500) throw new Error("never dropped");
      const r = await post(server, ws.token, {
        events: Array.from({ length: 12 }, (_, j) => message(ws, `${i}.${j} ${big}`)),
      });
      expect(r.status).toBe(201);
    }
    expect(reasons).toEqual(["forced close"]); // the bound, not the heartbeat
    await post(server, ws.token, { events: [message(ws, "after the drop 1"), message(ws, "after the drop 2")] });

    tcp.resume(); // reads what the kernel held, sees the connection gone, reconnects and rejoins
    const stored = (await readEvents(server, ws)).filter((e) => e.space_id === ws.space_id).map((e) => e.seq as number);
    await until(
      () => slow.seqs.length >= stored.length && steady.seqs.length >= stored.length,
      "both hold every event",
      60_000,
    );
    expect(slow.seqs).toEqual(stored);
    expect(steady.seqs).toEqual(stored);
    expect(slow.statuses).toContain("reconnecting");
    expect(steadyReasons).toEqual([]); // a reader keeps its connection
    slow.feed.stop();
    steady.feed.stop();
  });
});
