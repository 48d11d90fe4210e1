import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgliteWorkerClient } from "../db/pglite-worker-client";

// The embedded database's driver itself: PGlite in a worker thread (the server's default).
let dir: string;
let client: PgliteWorkerClient;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-pglite-worker-"));
  client = await PgliteWorkerClient.open(dir);
  await client.query("create table kv (k text primary key, v int not null)");
});
afterAll(async () => {
  await client?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const count = async () => ((await client.query("select count(*)::int as n from kv")).rows[0] as { n: number }).n;

describe("PGlite in a worker thread", () => {
  it("keeps this thread's event loop turning while a statement runs", async () => {
    let ticks = 0;
    let answered = false;
    const timer = setInterval(() => void (answered || ticks++), 0);
    await client.query("select count(*) from generate_series(1, 3000000)").finally(() => (answered = true));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0); // on this thread, PGlite's WebAssembly would run the statement in one go
  });

  it("answers a failed statement with its PostgreSQL error and goes on serving", async () => {
    await client.query("insert into kv values ('a', 1)");
    const e = await client
      .query("insert into kv values ('a', 2)")
      .catch((x: { code?: string; constraint?: string }) => x);
    expect(e).toMatchObject({ code: "23505", constraint: "kv_pkey" });
    expect(await count()).toBe(1);
  });

  it("a transaction is all or nothing, and a statement sent meanwhile runs after it, outside it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = client.transaction(async (t) => {
      await t.query("insert into kv values ('b', 1)");
      await gate;
      await t.query("insert into kv values ('a', 9)"); // taken: the whole transaction rolls back
    });
    // Sent while the transaction is open: it must neither see its insert nor run inside it.
    const outside = client.query("select count(*)::int as n from kv");
    release();
    await expect(tx).rejects.toMatchObject({ code: "23505" });
    expect((await outside).rows).toEqual([{ n: 1 }]);
    expect(await count()).toBe(1);
  });

  it("[ENV8] a fixed statement is parsed once and then only bound and executed; its values, arrays and errors are the query path's", async () => {
    const text = "select $1::text[] as keys, $2::bigint[] as seqs, $3::int + 1 as n, $4::timestamptz as ts";
    const params = [["a", 'b"c', "d,e"], [1, null, 3], 41, "2026-12-02T07:00:00.000Z"];
    const first = await client.run(text, params);
    const again = await client.run(text, params);
    expect(again.rows).toEqual(first.rows);
    expect(again.rows).toEqual((await client.query(text, params)).rows); // the same values as PGlite's own query
    expect(first.rows[0]).toMatchObject({ keys: ["a", 'b"c', "d,e"], n: 42 });
    const kept = await client.query(
      "select count(*)::int as n from pg_prepared_statements where statement = $1 and not from_sql",
      [text],
    );
    expect(kept.rows).toEqual([{ n: 1 }]); // one named statement for two runs
    const e = await client
      .run("insert into kv values ($1, $2)", ["a", 5])
      .catch((x: { code?: string; constraint?: string }) => x);
    expect(e).toMatchObject({ code: "23505", constraint: "kv_pkey" });
    await expect(
      client.transaction(async (t) => {
        await t.run("insert into kv values ($1, $2)", ["n1", 1]);
        await t.run("insert into kv values ($1, $2)", ["a", 2]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await client.run("select count(*)::int as n from kv where k = $1", ["n1"])).rows).toEqual([{ n: 0 }]);
  });

  it("when the worker dies, what was waiting fails as a lost database, and the next statement starts a new worker on the same data", async () => {
    await client.query("insert into kv values ('c', 3)");
    const worker = Reflect.get(client, "worker") as Worker;
    const inFlight = client.query("select pg_sleep(1)");
    await worker.terminate();
    await expect(inFlight).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
    expect((await client.query("select k from kv order by k")).rows).toEqual([{ k: "a" }, { k: "c" }]);
    expect(Reflect.get(client, "worker")).not.toBe(worker);
  });
});
