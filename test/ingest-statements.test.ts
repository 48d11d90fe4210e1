import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Run } from "../db/client";
import { eventsByKey } from "../db/ingest-sql";
import { IngestWriter } from "../lib/server/ingest/writer";
import type { Credential } from "../lib/server/credentials";
import { parseEvent, type IncomingEvent } from "../lib/core/protocol";
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

const count = async (text: string, params: unknown[]) =>
  Number((await database.run<{ n: unknown }>(text, params))[0].n);

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
    for (let i = 0; i < 12; i++)
      await database.transact(async (run) => void run("insert into t_transact values ($1, $2)", [`k${i}`, i]));
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

  const harnessOf = (w: Workspace): Credential => ({
    ...harness,
    workspaceId: w.workspace_id,
    subjectId: w.harness_id,
  });
  const request = (w: Workspace, texts: string[]) => {
    const cred = harnessOf(w);
    const events = texts.map((t) => incoming(message(w, t)));
    return {
      credential: cred,
      events,
      hashes: events.map((e) => bodyHash(e, cred)),
      pointers: events.map((_, i) => `/events/${i}`),
    };
  };
  /** One request holding `first`'s events, then `then`'s: a key another node stored, then fresh ones. */
  const joined = (first: ReturnType<typeof request>, then: ReturnType<typeof request>) => {
    const events = [...first.events, ...then.events];
    return {
      ...then,
      events,
      hashes: [...first.hashes, ...then.hashes],
      pointers: events.map((_, i) => `/events/${i}`),
    };
  };
  /** The database, with every statement the writer sends seen by `see` first. */
  const watched = (see: (text: string) => Promise<void> | void): Database => {
    const wrap =
      (run: Run): Run =>
      async <T>(text: string, params?: unknown[]) => {
        await see(text);
        return run<T>(text, params);
      };
    return { ...database, run: wrap(database.run), transact: (work) => database.transact((run) => work(wrap(run))) };
  };

  it("[ENV8] the SQL a commit sends is the same text for 1, 7, 100 and 500 events, with no per-event placeholders", async () => {
    const texts = new Set<string>();
    const writer = new IngestWriter(
      watched((t) => void texts.add(t)),
      { maxBatchEvents: 500, maxQueueEvents: 10_000 },
    );
    const before = (await readEvents(server, ws)).length;
    const shapes: number[] = [];
    for (const n of [1, 7, 100, 500]) {
      const r = await writer.submit(
        ws.workspace_id,
        request(
          ws,
          Array.from({ length: n }, (_, i) => `shape ${n}.${i}`),
        ),
      );
      expect(r.ok).toBe(true);
      shapes.push(texts.size);
    }
    expect(shapes).toEqual([2, 2, 2, 2]); // one read, one write
    for (const t of texts) expect(t).not.toMatch(/\$(2[3-9]|[3-9]\d)/); // at most 22 parameters, whatever the size
    const stored = await readEvents(server, ws);
    expect(stored.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: before + 608 }, (_, i) => i + 1));
  });

  it("[SCL4] a commit's statements carry no NOTIFY: a notifying commit holds PostgreSQL's one global notify lock through its WAL flush", async () => {
    const texts: string[] = [];
    const writer = new IngestWriter(
      watched((t) => void texts.push(t)),
      { maxBatchEvents: 500, maxQueueEvents: 10_000 },
    );
    const r = await writer.submit(ws.workspace_id, request(ws, ["no notice inside"]));
    expect(r.ok).toBe(true);
    expect(texts.some((t) => t.includes("insert into events"))).toBe(true);
    for (const t of texts) expect(t).not.toMatch(/notify/i);
  });

  it("[ENV8] [ENV9] a commit landing between a batch's read and its write: the batch stores nothing, is judged again under the lock, seqs stay in commit order", async () => {
    const w = await newWorkspace(server);
    const otherNode = new IngestWriter(database, { maxBatchEvents: 500, maxQueueEvents: 10_000 });
    const dup = request(w, ["sent to both nodes"]);
    let raced = false;
    const writer = new IngestWriter(
      watched(async (text) => {
        if (raced || !text.includes("update workspaces set seq_head")) return;
        raced = true; // the other node commits the same keyed event, and another, before this write
        expect((await otherNode.submit(w.workspace_id, dup)).ok).toBe(true);
        expect((await otherNode.submit(w.workspace_id, request(w, ["the other node's"]))).ok).toBe(true);
      }),
      { maxBatchEvents: 500, maxQueueEvents: 10_000 },
    );
    const mine = request(w, ["mine"]);
    const r = await writer.submit(w.workspace_id, joined(dup, mine));
    expect(raced).toBe(true);
    if (!r.ok) throw new Error(r.problem.detail);
    const stored = await readEvents(server, w);
    expect(stored.map((e: { text: string; seq: number }) => `${e.seq} ${e.text}`)).toEqual([
      "1 sent to both nodes",
      "2 the other node's",
      "3 mine",
    ]);
    // The keyed event is answered as the other node stored it, once.
    expect(JSON.parse(r.bodies[0]).seq).toBe(1);
    expect(r.created).toBe(true);
  });

  it("[ENV8] [ENV9] a batch judged on this node's heads without a read, after another node stored its key: the write stores nothing, the batch reads, replays the key and stores the rest after it", async () => {
    const w = await newWorkspace(server);
    const opts = { maxBatchEvents: 500, maxQueueEvents: 10_000 };
    const otherNode = new IngestWriter(database, opts);
    const texts: string[] = [];
    const writer = new IngestWriter(
      watched((t) => void texts.push(t)),
      opts,
    );
    const reads = () => texts.filter((t) => t.includes(" as by_key")).length;
    expect((await writer.submit(w.workspace_id, request(w, ["read"]))).ok).toBe(true);
    expect((await writer.submit(w.workspace_id, request(w, ["not read"]))).ok).toBe(true);
    expect(reads()).toBe(1); // the second was judged on the heads the first left
    const dup = request(w, ["sent to both nodes"]);
    expect((await otherNode.submit(w.workspace_id, dup)).ok).toBe(true);
    const mine = request(w, ["mine"]);
    const r = await writer.submit(w.workspace_id, joined(dup, mine));
    if (!r.ok) throw new Error(r.problem.detail);
    expect(reads()).toBe(2);
    expect(JSON.parse(r.bodies[0]).seq).toBe(3); // answered as the other node stored it, once
    expect((await writer.submit(w.workspace_id, request(w, ["not read again"]))).ok).toBe(true);
    expect(reads()).toBe(2);
    const rows = await database.run<{ seq: unknown; prev_seq: unknown; body: string }>(
      "select seq, prev_seq, body from events where workspace_id = $1 order by seq",
      [w.workspace_id],
    );
    // Seqs in commit order, and each event's space chain intact (prev_seq from the heads known or read).
    expect(rows.map((x) => `${x.seq} ${x.prev_seq} ${JSON.parse(x.body).text}`)).toEqual([
      "1 0 read",
      "2 1 not read",
      "3 2 sent to both nodes",
      "4 3 mine",
      "5 4 not read again",
    ]);
  });

  it("[ENV3] a batch judged without a read whose event id another workspace stored meanwhile is refused 409 event_id_conflict, as after a read", async () => {
    const [w, other] = [await newWorkspace(server), await newWorkspace(server)];
    const writer = new IngestWriter(database, { maxBatchEvents: 500, maxQueueEvents: 10_000 });
    expect((await writer.submit(w.workspace_id, request(w, ["heads known"]))).ok).toBe(true);
    const theirs = request(other, ["theirs"]);
    expect((await writer.submit(other.workspace_id, theirs)).ok).toBe(true);
    const mine = request(w, ["the same id"]);
    const event = { ...mine.events[0], id: theirs.events[0].id };
    const r = await writer.submit(w.workspace_id, {
      ...mine,
      events: [event],
      hashes: [bodyHash(event, mine.credential)],
    });
    expect(r.ok ? "stored" : r.problem.code).toBe("event_id_conflict");
    expect((await readEvents(server, w)).length).toBe(1);
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
    await eventsByKey(async <T>(t: string) => ((text = t), [] as T[]), big.workspace_id, keys);
    // As planned for these values, and as the generic plan a prepared statement may switch to.
    const plans = [planText(await database.run(`explain ${text}`, [big.workspace_id, keys]))];
    const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
    await database.transact(async (run) => {
      await run("set local plan_cache_mode = force_generic_plan");
      await run(`prepare dedupe_probe(text, text[]) as ${text}`);
      plans.push(
        planText(
          await run(
            `explain execute dedupe_probe(${literal(big.workspace_id)}, array[${keys.map(literal).join(",")}])`,
          ),
        ),
      );
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
