import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { message, newWorkspace, post, readEvents, runStarted, runStatus, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { freePort, freshDatabase, spawnServer, type ServerProcess } from "./support/server";

const procs: ServerProcess[] = [];
afterAll(() => procs.forEach((p) => p.proc.kill("SIGKILL")));

/**
 * Post until stored, as a harness would: the same event (same key) again after a failure,
 * with a growing back-off, for at most a minute.
 */
async function deliver(url: () => string, token: string, event: Record<string, unknown>) {
  const end = Date.now() + 60_000;
  for (let attempt = 0; Date.now() < end; attempt++) {
    const r = await post({ url: url() }, token, event).catch(() => null);
    if (r && (r.status === 201 || r.status === 200)) return r.body.events[0].seq as number;
    if (r && r.status < 500) throw new Error(`refused: ${r.status} ${r.text}`);
    await new Promise((res) => setTimeout(res, Math.min(500, 20 * 2 ** attempt)));
  }
  throw new Error("never stored");
}

// Two server processes start in turn (the second on a full log): 12 s on a quiet machine, near
// 60 s on a loaded CI — the limit is a safety net, not a measure.
describe("[RT1] [RT2] [RT4] three runs, a client away, a server restart", { timeout: 180_000 }, () => {
  it("[RT2] every client's received seq list equals the database's list for the space", async () => {
    const db = await freshDatabase();
    const port = await freePort();
    const env: Record<string, string> = {
      CHIPS_DATA_DIR: db.dataDir,
      PORT: String(port),
      CHIPS_RATE_LIMIT: "0",
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    let server = await spawnServer(env);
    procs.push(server);
    const url = () => server.url;
    const admin = fs.readFileSync(`${db.dataDir}/admin-token`, "utf8").trim();
    const ws: Workspace = await newWorkspace({ url: server.url, adminToken: admin } as never);

    const steady = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    const away = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    await until(() => steady.statuses.includes("live") && away.statuses.includes("live"), "both clients live");

    const RUNS = 3;
    const PER_RUN = 180; // 3 × (1 + 180) + messages > 500 events
    let posted = 0;
    let restarted = false;
    let awayBack = false;
    const harness = async (r: number) => {
      const started = runStarted(ws, undefined, { goal: `run ${r}` });
      await deliver(url, ws.token, started);
      for (let i = 0; i < PER_RUN; i++) {
        const e =
          i % 20 === 0
            ? message(ws, `run ${r} says ${i}`)
            : runStatus(ws, started.run_id as string, { verb_phrase: `r${r} step ${i}`, progress: i / PER_RUN });
        await deliver(url, ws.token, e);
        posted++;
        if (posted === 120) away.feed.socket.disconnect(); // one client away for a while
        if (posted === 260 && !restarted) {
          restarted = true;
          server.proc.kill("SIGKILL");
          await server.exited;
          server = await spawnServer(env);
          procs.push(server);
        }
        if (posted === 400 && !awayBack) {
          awayBack = true;
          away.feed.socket.connect();
        }
      }
    };
    await Promise.all(Array.from({ length: RUNS }, (_, r) => harness(r)));

    const stored = (await readEvents({ url: server.url }, ws))
      .filter((e) => e.space_id === ws.space_id)
      .map((e) => e.seq);
    expect(stored.length).toBeGreaterThanOrEqual(500);
    const late = recordingFeed(server.url, ws.space_id, { token: ws.person_token }); // a third joins at the end
    for (const c of [steady, away, late])
      await until(() => c.seqs.length >= stored.length, "a client to hold every event", 60_000);
    expect(steady.seqs).toEqual(stored);
    expect(away.seqs).toEqual(stored);
    expect(late.seqs).toEqual(stored);
    expect(steady.statuses).toContain("reconnecting"); // it really lived through the restart
    for (const c of [steady, away, late]) c.feed.stop();
    server.proc.kill("SIGTERM");
    await server.exited;
    await db.drop();
  });
});
