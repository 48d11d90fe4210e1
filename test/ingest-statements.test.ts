import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../db/client";
import { eventsByKey } from "../db/ingest-sql";
import { IngestWriter } from "../lib/server/ingest/writer";
import type { Credential } from "../lib/server/credentials";
import { parseEvent, type IncomingEvent } from "../lib/protocol";
import { bodyHash } from "../lib/server/ingest/serialize";
import { message, newWorkspace, readEvents, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let database: Database;
let ws: Workspace;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  database = server.chips.services.database;
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());

const count = async (text: string, params: unknown[]) => Number((await database.run<{ n: unknown }>(text, params))[0].n);

describe("the writer's transaction (db/client.ts transact)", () => {
  it("[HTTP1] a statement failing among pipelined writes rolls back all of them, and the connection serves the next transaction", async () => {
    await database.run("create table if not exists t_transact (k text primary key, v int not null)");
    const failed = await database
      .transact(async (run) => {
        void run("insert into t_transact values ($1, $2)", ["a", 1]);
        void run("insert into t_transact values ($1, $2)", ["a", 2]); // the same key: refused
        void run("insert into t_transact values ($1, $2)", ["b", 3]);
        return "committed";
      })
      .then(
        () => null,
        (e: { code?: string }) => e,
      );
    expect(failed?.code).toBe("23505"); // the first failure, not the "transaction is aborted" after it
    expect(await count("select count(*) as n from t_transact", [])).toBe(0);
    // Several in a row on the pool: none is left inside an aborted transaction.
    for (let i = 0; i < 12; i++) await database.transact(async (run) => void run("insert into t_transact values ($1, $2)", [`k${i}`, i]));
    expect(await count("select count(*) as n from t_transact", [])).toBe(12);
  });

  it("[HTTP1] an exception in the work after writes were issued rolls them back", async () => {
    await database.run("create table if not exists t_transact2 (k text primary key)");
    await expect(
      database.transact(async (run) => {
        void run("insert into t_transact2 values ($1)", ["x"]);
        throw new Error("judging failed");
      }),
    ).rejects.toThrow("judging failed");
    expect(await count("select count(*) as n from t_transact2", [])).toBe(0);
  });
});

describe("fixed statement shapes", () => {
  const harness: Credential = { kind: "harness", workspaceId: "", subjectId: "" };
  const incoming = (e: unknown): IncomingEvent => {
    const r = parseEvent(e, "");
    if (!r.ok) throw new Error(JSON.stringify(r.problem));
    return r.event;
  };

  it("[ENV8] the SQL a commit sends is the same text for 1, 7, 100 and 500 events, with no per-event placeholders", async () => {
    const texts = new Set<string>();
    const recorded: Database = {
      ...database,
      transact: (work) =>
        database.transact((run) =>
          work(<T,>(text: string, params?: unknown[]) => {
            texts.add(text);
            return run<T>(text, params);
          }),
        ),
    };
    const cred = { ...harness, workspaceId: ws.workspace_id, subjectId: ws.harness_id };
    const writer = new IngestWriter(recorded, { maxBatchEvents: 500, maxQueueEvents: 10_000 });
    const shapes: number[] = [];
    for (const n of [1, 7, 100, 500]) {
      const events = Array.from({ length: n }, (_, i) => incoming(message(ws, `shape ${n}.${i}`)));
      const r = await writer.submit(ws.workspace_id, {
        credential: cred,
        events,
        hashes: events.map((e) => bodyHash(e, cred)),
        pointers: events.map((_, i) => `/events/${i}`),
      });
      expect(r.ok).toBe(true);
      shapes.push(texts.size);
    }
    expect(shapes.every((s) => s === shapes[0])).toBe(true);
    for (const t of texts) expect(t).not.toMatch(/\$(1[5-9]|[2-9]\d)/); // at most 14 parameters, whatever the size
    const stored = await readEvents(server, ws);
    expect(stored.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: 608 }, (_, i) => i + 1));
  });

  it("[ENV9] the dedupe by key probes the unique index of (workspace, key) however big the workspace and however stale its statistics", async () => {
    const big = await newWorkspace(server);
    // Statistics taken while the workspace was empty, then 30,000 events: the shape of the planner trap.
    await database.run("analyze events");
    const fill = (w: string, n: number) =>
      database.run(
        `insert into events (workspace_id, seq, id, type, space_id, idempotency_key, body_hash, body, ts)
         select $1, g, $1 || '-' || g, 'message.posted', null, 'k' || g, 'h', '{}', now() from generate_series(1, $2::int) g`,
        [w, n],
      );
    await fill(big.workspace_id, 30_000);
    const keys = Array.from({ length: 200 }, (_, i) => `k${i * 149 + 1}`);
    const planText = (rows: Record<string, unknown>[]) => rows.map((r) => Object.values(r)[0]).join("\n");
    let text = "";
    await eventsByKey(async <T,>(t: string) => ((text = t), [] as T[]), big.workspace_id, keys);
    // As planned for these values, and as the generic plan a prepared statement may switch to.
    const probes = keys.map((k) => `${big.workspace_id} ${k}`);
    const plans = [planText(await database.run(`explain ${text}`, [probes]))];
    const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
    await database.transact(async (run) => {
      await run("set local plan_cache_mode = force_generic_plan");
      await run(`prepare dedupe_probe(text[]) as ${text}`);
      plans.push(planText(await run(`explain execute dedupe_probe(array[${probes.map(literal).join(",")}])`)));
      await run("deallocate dedupe_probe");
    });
    for (const plan of plans) {
      expect(plan).toContain("events_workspace_key");
      expect(plan).not.toMatch(/Seq Scan on events|events_pkey|events_space_seq_idx/);
    }
    const found = await eventsByKey(database.run, big.workspace_id, keys);
    expect([...found.keys()].sort()).toEqual([...keys].sort());
    expect((await eventsByKey(database.run, ws.workspace_id, keys)).size).toBe(0); // keys are per workspace
  });
});
