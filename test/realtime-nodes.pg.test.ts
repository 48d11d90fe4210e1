import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { key, message, newHarness, newWorkspace, post, readEvents, request, type Workspace } from "./support/api";
import { rawRunner } from "./support/raw-runner";
import { recordingFeed, until } from "./support/feed";
import { freshDatabase, spawnServer, type ServerProcess } from "./support/server";

const procs: ServerProcess[] = [];
afterAll(() => procs.forEach((p) => p.proc.kill("SIGKILL")));

// Several app nodes need a shared Postgres (PGlite is single-process by design): *.pg.test.ts.
describe("[RT1] several nodes on one Postgres", () => {
  it("[RT1] a client on one node receives, in seq order and once each, what was posted to every node", async () => {
    const db = await freshDatabase();
    const env = (i: number) => ({
      DATABASE_URL: db.databaseUrl!,
      CHIPS_DATA_DIR: `${db.dataDir}/n${i}`,
      CHIPS_RATE_LIMIT: "0",
    });
    const [a, b] = await Promise.all([spawnServer(env(1)), spawnServer(env(2))]);
    procs.push(a, b);
    const ws: Workspace = await newWorkspace({
      url: a.url,
      adminToken: fs.readFileSync(`${db.dataDir}/n1/admin-token`, "utf8").trim(),
    } as never);
    const onB = recordingFeed(b.url, ws.space_id, { token: ws.person_token });
    const onA = recordingFeed(a.url, ws.space_id, { token: ws.person_token });
    await until(() => onA.statuses.includes("live") && onB.statuses.includes("live"), "both live");
    // Two posters, one per node, interleaving in one workspace.
    await Promise.all(
      [a, b].map(async (node, n) => {
        for (let i = 0; i < 100; i++) await post({ url: node.url }, ws.token, message(ws, `node ${n} #${i}`));
      }),
    );
    const stored = (await readEvents({ url: b.url }, ws)).map((e) => e.seq);
    expect(stored).toHaveLength(200);
    await until(() => onA.seqs.length >= 200 && onB.seqs.length >= 200, "every event on both nodes' clients");
    expect(onB.seqs).toEqual(stored);
    expect(onA.seqs).toEqual(stored);
    onA.feed.stop();
    onB.feed.stop();
    await db.drop();
  });

  it("[RN1] a run queued on one node is handed, once, to a runner connected to another", async () => {
    const db = await freshDatabase();
    const env = (i: number) => ({ DATABASE_URL: db.databaseUrl!, CHIPS_DATA_DIR: `${db.dataDir}/n${i}` });
    const [a, b] = await Promise.all([spawnServer(env(1)), spawnServer(env(2))]);
    procs.push(a, b);
    const server = { url: a.url, adminToken: fs.readFileSync(`${db.dataDir}/n1/admin-token`, "utf8").trim() } as never;
    const ws: Workspace = await newWorkspace(server);
    const cred = await newHarness(server, ws, "runner on b", "runner");
    const onB = await rawRunner(b.url, cred.token);
    const started = await request(`${a.url}/api/v1/runs`, {
      method: "POST",
      token: ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        space_id: ws.space_id,
        prompt: "Across nodes",
        repository: "demo",
        idempotency_key: key(),
      }),
    });
    expect(started.status).toBe(201);
    const req = await onB.startFor(started.body.run_id);
    expect(req.repository).toBe("demo");
    const events = (await readEvents({ url: a.url }, ws)).filter((e) => e.run_id === started.body.run_id);
    expect(events.map((e) => e.type)).toEqual(["run.queued", "run.assigned"]);
    expect(events[1].runner_id).toBe(cred.harness_id);
    onB.close();
    await db.drop();
  });
});
