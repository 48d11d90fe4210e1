import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { message, newWorkspace, post, readEvents, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { freshDatabase, spawnServer, type ServerProcess } from "./support/server";

const procs: ServerProcess[] = [];
afterAll(() => procs.forEach((p) => p.proc.kill("SIGKILL")));

// Several app nodes need a shared Postgres (PGlite is single-process by design): *.pg.test.ts.
describe("[RT1] several nodes on one Postgres", () => {
    it("[RT1] a client on one node receives, in seq order and once each, what was posted to every node", async () => {
      const db = await freshDatabase();
      const env = (i: number) => ({ DATABASE_URL: db.databaseUrl!, CHIPS_DATA_DIR: `${db.dataDir}/n${i}`, CHIPS_RATE_LIMIT: "0" });
      const [a, b] = await Promise.all([spawnServer(env(1)), spawnServer(env(2))]);
      procs.push(a, b);
      const ws: Workspace = await newWorkspace({ url: a.url, adminToken: fs.readFileSync(`${db.dataDir}/n1/admin-token`, "utf8").trim() } as never);
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
  });
