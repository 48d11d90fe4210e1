import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { message, newWorkspace, post, readEvents, type Workspace } from "./support/api";
import { dbKind, freshDatabase, spawnServer, type ServerProcess } from "./support/server";

const started: ServerProcess[] = [];
afterAll(() => {
  for (const s of started) s.proc.kill("SIGKILL");
});

async function boot(env: Record<string, string>) {
  const s = await spawnServer(env);
  started.push(s);
  return s;
}

const adminOf = (dataDir: string) => fs.readFileSync(`${dataDir}/admin-token`, "utf8").trim();

describe("the embedded database is safe", () => {
  // Each database has its own start-up hazard: the directory lock, or migrations racing.
  if (dbKind() === "pglite")
    it("a second server on one PGlite directory is refused with the holder's PID", async () => {
      const db = await freshDatabase();
      const first = await boot({ CHIPS_DATA_DIR: db.dataDir });
      const second = spawnServer({ CHIPS_DATA_DIR: db.dataDir });
      await expect(second).rejects.toThrow(new RegExp(`in use by another Chips server \\(PID ${first.proc.pid}`));
      first.proc.kill("SIGTERM");
      expect(await first.exited).toBe(0);
      await db.drop();
    });

  if (dbKind() === "postgres")
    it("several servers start together on one Postgres: migrations take turns under an advisory lock", async () => {
      const db = await freshDatabase();
      const env = (i: number) => ({ DATABASE_URL: db.databaseUrl!, CHIPS_DATA_DIR: `${db.dataDir}/node${i}` });
      const nodes = await Promise.all([boot(env(1)), boot(env(2)), boot(env(3))]);
      const ws = await newWorkspace({ url: nodes[0].url, adminToken: adminOf(`${db.dataDir}/node1`) } as never);
      // Each node takes writes for the same workspace; seq stays gap-free across them.
      for (const n of nodes) expect((await post({ url: n.url }, ws.token, message(ws, n.url))).status).toBe(201);
      expect((await readEvents({ url: nodes[2].url }, ws)).map((e) => e.seq)).toEqual([1, 2, 3]);
      for (const n of nodes) n.proc.kill("SIGKILL");
      await Promise.all(nodes.map((n) => n.exited));
      await db.drop();
    });

  it("every acknowledged event is there after kill -9 and a restart", async () => {
    const db = await freshDatabase();
    const env: Record<string, string> = {
      CHIPS_DATA_DIR: db.dataDir,
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    const first = await boot(env);
    const ws: Workspace = await newWorkspace({ url: first.url, adminToken: adminOf(db.dataDir) } as never);

    const acked: number[] = [];
    let killed = false;
    const clients = Array.from({ length: 4 }, async (_, c) => {
      for (let i = 0; !killed; i++) {
        const r = await post({ url: first.url }, ws.token, message(ws, `c${c}-${i}`)).catch(() => null);
        if (!r) return; // the connection died with the server
        if (r.status === 201) acked.push(r.body.events[0].seq);
        if (acked.length >= 200 && !killed) {
          killed = true;
          first.proc.kill("SIGKILL");
        }
      }
    });
    await Promise.all(clients);
    await first.exited;

    const second = await boot(env);
    const stored = (await readEvents({ url: second.url }, ws)).map((e) => e.seq);
    expect(stored.length).toBeGreaterThanOrEqual(acked.length);
    expect(stored).toEqual(Array.from({ length: stored.length }, (_, i) => i + 1));
    for (const seq of acked) expect(stored).toContain(seq);
    // The restarted server goes on from the stored head.
    const next = await post({ url: second.url }, ws.token, message(ws, "after restart"));
    expect(next.body.events[0].seq).toBe(stored.length + 1);
    second.proc.kill("SIGTERM");
    await second.exited;
    await db.drop();
  });
});
