import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster } from "../scripts/pg-cluster.mjs";
import { ChipsClient } from "../lib/agents/sdk";
import { message, newWorkspace, post, readEvents, request, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { spawnServer, type ServerProcess } from "./support/server";

/**
 * The fault suite (docs/ARCHITECTURE.md, house rule 9): PostgreSQL stops under a live server while harnesses
 * post through the SDK (retrying on 503 with the same key) and browsers' room feeds join,
 * leave and join again. The cluster is this file's own, so stopping it touches no other test.
 */
type Cluster = Awaited<ReturnType<typeof startCluster>>;
let pg: Cluster;
let server: ServerProcess;
let dataDir: string;
let adminToken: string;

beforeAll(async () => {
  pg = await startCluster({ quiet: true });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-outage-"));
  server = await spawnServer({ DATABASE_URL: pg.url, CHIPS_DATA_DIR: dataDir, CHIPS_RATE_LIMIT: "0" });
  adminToken = fs.readFileSync(path.join(dataDir, "admin-token"), "utf8").trim();
});

afterAll(async () => {
  server?.proc.kill("SIGKILL");
  await pg?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const HARNESSES = 3;
const BROWSERS = 3;

/** One outage of `outageMs` in the middle of the posting; answers what was seen. */
async function outage(outageMs: number) {
  const url = server.url;
  const ws: Workspace = await newWorkspace({ url, adminToken } as never);
  const acked: { id: string; seq: number }[] = [];
  let outageOver = false;

  // Harnesses: each posts until the outage is over and a few more after, every post retried
  // by the SDK (same bytes, same idempotency key) until the server stores it.
  const posters = Array.from({ length: HARNESSES }, async (_, h) => {
    const client = new ChipsClient({
      url,
      token: ws.token,
      workspaceId: ws.workspace_id,
      retry: { attempts: 1000, baseMs: 100, maxMs: 1000, totalMs: outageMs + 120_000 },
    });
    let after = 0;
    for (let i = 0; after < 10; i++) {
      const stored = (await client.post({
        type: "message.posted",
        space_id: ws.space_id,
        text: `harness ${h} #${i}`,
      })) as { id: string; seq: number };
      acked.push({ id: stored.id, seq: stored.seq });
      if (outageOver) after++;
    }
    client.close();
  });

  // Browsers: each joins, leaves and joins again from its last seq, over and over, through the outage.
  const feeds: ReturnType<typeof recordingFeed>[] = [];
  const finalSeqs: number[][] = [];
  let churning = true;
  const browsers = Array.from({ length: BROWSERS }, async () => {
    const held: number[] = [];
    let feed = recordingFeed(url, ws.space_id, { token: ws.person_token });
    feeds.push(feed);
    while (churning) {
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 700)); // how long a person stays: the scenario, not a wait for a result
      held.push(...feed.seqs);
      feed.feed.stop();
      feed = recordingFeed(url, ws.space_id, { token: ws.person_token }, held.length ? held[held.length - 1] : 0);
      feeds.push(feed);
    }
    return { held, feed };
  });

  await until(() => acked.length >= 30, "posts before the outage", 60_000);
  await pg.halt();
  const haltedAt = Date.now();
  const refusals: { status: number; retryAfter: string | null; ms: number }[] = [];
  // While the database is down: a write gets 503 + Retry-After, health says not ready, liveness holds.
  await until(
    async () => {
      const t0 = performance.now();
      const r = await post({ url }, ws.token, message(ws, "during the outage"));
      refusals.push({ status: r.status, retryAfter: r.headers.get("retry-after"), ms: performance.now() - t0 });
      return r.status === 503;
    },
    "a write refused with 503 during the outage",
    outageMs,
  );
  const duringRefusal = refusals[refusals.length - 1];
  // Reads go ahead and say so: one served from memory (the connected runners), one that needs the database.
  const servedRead = await request(`${url}/api/v1/workspaces/${ws.workspace_id}/runners`, { token: ws.token });
  const storedRead = await request(`${url}/api/v1/workspaces/${ws.workspace_id}/events?after=0&limit=1`, {
    token: ws.token,
  });
  const ready = await request(`${url}/api/v1/health`);
  const live = await request(`${url}/api/v1/health/live`);
  const storageSeenByRoom = await until(
    () => feeds.some((f) => f.statuses.includes("storage")),
    "a room says it is reconnecting to storage",
    outageMs,
  ).then(
    () => true,
    () => false,
  );
  await new Promise((r) => setTimeout(r, Math.max(0, haltedAt + outageMs - Date.now()))); // the outage lasts this long
  await pg.resume();
  outageOver = true;
  await Promise.all(posters);
  churning = false;
  const finals = await Promise.all(browsers);

  await until(async () => (await request(`${url}/api/v1/health`)).status === 200, "ready again after the restart");
  const stored = await readEvents({ url }, ws);
  const room = stored.filter((e) => e.space_id === ws.space_id).map((e) => e.seq as number);
  await until(
    () => finals.every((f) => f.held.length + f.feed.seqs.length >= room.length),
    "every socket caught up",
    60_000,
  );
  for (const f of finals) {
    finalSeqs.push([...f.held, ...f.feed.seqs]);
    f.feed.feed.stop();
  }
  return {
    ws,
    acked,
    stored,
    room,
    refusals,
    duringRefusal,
    servedRead,
    storedRead,
    ready,
    live,
    storageSeenByRoom,
    finalSeqs,
  };
}

function assertWhole(r: Awaited<ReturnType<typeof outage>>) {
  expect(server.proc.exitCode, "the server stayed up").toBeNull();
  expect(server.output()).not.toMatch(/unhandled rejection|uncaught exception/);
  expect(r.duringRefusal.status).toBe(503);
  expect(Number(r.duringRefusal.retryAfter)).toBeGreaterThan(0);
  expect(r.servedRead.status, "a read served from memory").toBe(200);
  expect(r.servedRead.headers.get("chips-storage")).toBe("unavailable");
  expect(r.storedRead.status, "a read that needs the database").toBe(503);
  expect(r.storedRead.body).toMatchObject({ code: "unavailable" });
  expect(r.storedRead.headers.get("chips-storage")).toBe("unavailable");
  expect(r.ready.status).toBe(503);
  expect(r.ready.body).toMatchObject({ ok: false, ready: false, storage: "unreachable" });
  expect(r.live.status).toBe(200);
  expect(r.storageSeenByRoom, "a room said it was reconnecting to storage").toBe(true);
  // Every acknowledged event stored once; seq gap-free from 1.
  const seqs = r.stored.map((e) => e.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  const ids = new Set(r.stored.map((e) => e.id));
  expect(ids.size).toBe(r.stored.length);
  const bySeq = new Map(r.stored.map((e) => [e.seq, e.id]));
  for (const a of r.acked) expect(bySeq.get(a.seq), `acked ${a.id}`).toBe(a.id);
  // Every socket caught up to the full list, in order, each once.
  for (const seqs of r.finalSeqs) expect(seqs).toEqual(r.room);
  console.log(
    `[outage] ${r.acked.length} acked, ${r.stored.length} stored, seq 1..${seqs.length}; ` +
      `${r.refusals.filter((x) => x.status === 503).length} probe 503s (Retry-After ${r.duringRefusal.retryAfter}, answered in ${r.duringRefusal.ms.toFixed(0)} ms); ` +
      `${r.finalSeqs.length} sockets caught up`,
  );
}

describe("outages: PostgreSQL goes away and comes back", () => {
  it(
    "a 10 s outage: the server stays up, writes get 503 + Retry-After, reads say storage is unavailable, health says not ready, nothing is lost or doubled",
    { timeout: 240_000 },
    async () => {
      assertWhole(await outage(10_000));
    },
  );

  it("a 60 s outage: the same", { timeout: 360_000 }, async () => {
    assertWhole(await outage(60_000));
  });
});
