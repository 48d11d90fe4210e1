import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { key, newWorkspace, request, type Workspace } from "./support/api";
import { freshDatabase, spawnServer, type ServerProcess } from "./support/server";

const procs: ServerProcess[] = [];
afterAll(() => procs.forEach((p) => p.proc.kill("SIGKILL")));

// Two app nodes need a shared Postgres (PGlite is single-process by design): *.pg.test.ts.
describe("[TSK3] starts on two nodes of one Postgres", () => {
  it("[TSK3] overlapping tasks started at once on different nodes: exactly one is queued, the other is 409 scope_overlap", async () => {
    const db = await freshDatabase();
    const env = (i: number) => ({ DATABASE_URL: db.databaseUrl!, CHIPS_DATA_DIR: `${db.dataDir}/n${i}` });
    const [a, b] = await Promise.all([spawnServer(env(1)), spawnServer(env(2))]);
    procs.push(a, b);
    const adminToken = fs.readFileSync(`${db.dataDir}/n1/admin-token`, "utf8").trim();
    const ws: Workspace = await newWorkspace({ url: a.url, adminToken } as never);
    const send = (url: string, body: unknown) =>
      request(url, {
        method: "POST",
        token: ws.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const tasksOn = (node: ServerProcess) => `${node.url}/api/v1/spaces/${ws.space_id}/tasks`;
    const make = async (title: string, scope: string) => {
      const r = await send(tasksOn(a), {
        title,
        prompt: "p",
        repository: "demo",
        write_scope: [scope],
        idempotency_key: key(),
      });
      expect(r.status, r.text).toBe(201);
      return r.body.task_id as string;
    };
    for (let round = 0; round < 3; round++) {
      const x = await make(`X${round}`, `r${round}/**`);
      const y = await make(`Y${round}`, `r${round}/src/**`);
      const answers = await Promise.all([
        send(`${tasksOn(a)}/${x}/start`, { idempotency_key: key() }),
        send(`${tasksOn(b)}/${y}/start`, { idempotency_key: key() }),
      ]);
      expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join("\n")).toEqual([201, 409]);
      expect(answers.find((r) => r.status === 409)!.body.code).toBe("scope_overlap");
    }
    await db.drop();
  });
});
