import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { newId } from "../../lib/core/protocol";
import type { DbKind } from "./pg";
import type { PgAdmin } from "./pg-watch";
import { summarize, usageMeter, waitQuiet, type Latency, type Usage } from "./stats";

/**
 * Driver-only baselines: the rows Chips stores (an events row of ~300 bytes with the same
 * keys and indexes as `events`, and a bump of the workspace's counter row in the same
 * transaction) inserted straight through postgres-js or PGlite — no HTTP, no validation,
 * no dedupe reads. What the database alone allows on this machine, measured in the same run.
 */
export interface BaselineCase {
  key: string;
  label: string;
  perTx: number;
  clients: number;
}

export const BASELINES: Record<DbKind, BaselineCase[]> = {
  postgres: [
    { key: "tx1-c1", label: "1 event/tx, 1 client", perTx: 1, clients: 1 },
    { key: "tx1-c16", label: "1 event/tx, 16 clients", perTx: 1, clients: 16 },
    { key: "tx50-c1", label: "50 events/tx, 1 client", perTx: 50, clients: 1 },
    { key: "tx50-c4", label: "50 events/tx, 4 clients", perTx: 50, clients: 4 },
  ],
  // One embedded instance serializes its transactions: more callers add nothing.
  pglite: [
    { key: "tx1-c1", label: "1 event/tx, 1 client", perTx: 1, clients: 1 },
    { key: "tx50-c1", label: "50 events/tx, 1 client", perTx: 50, clients: 1 },
  ],
};

export interface BaselineResult {
  db: DbKind;
  case: BaselineCase;
  events: number;
  eventsPerSec: number;
  /** Per transaction, ms. */
  lat: Latency;
  usage: Usage;
  /** Cores busy (% of one) just before the warm-up: other work on the machine. */
  busyBefore: number;
  check: string;
}

const DDL = [
  `create table bench_counters (workspace_id text primary key, seq_head bigint not null default 0)`,
  `create table bench_events (workspace_id text not null, seq bigint not null, id text not null, type text not null,
     space_id text, prev_seq bigint, run_id text, idempotency_key text, body_hash text not null, body text not null,
     ts timestamptz not null, primary key (workspace_id, seq))`,
  `create unique index bench_events_id_key on bench_events (id)`,
  `create unique index bench_events_idem on bench_events (workspace_id, idempotency_key) where idempotency_key is not null`,
  `create index bench_events_space_seq on bench_events (workspace_id, space_id, seq)`,
  `create index bench_events_run_seq on bench_events (run_id, seq)`,
];
const COLS = [
  "workspace_id",
  "seq",
  "id",
  "type",
  "space_id",
  "prev_seq",
  "run_id",
  "idempotency_key",
  "body_hash",
  "body",
  "ts",
] as const;

/** One transaction's rows, seqs `head-n+1 .. head`, shaped like Chips' stored message events. */
function rows(ws: string, spc: string, head: number, n: number, nextKey: () => number) {
  const ts = new Date().toISOString();
  return Array.from({ length: n }, (_, i) => {
    const seq = head - n + i + 1;
    const key = `bench-${nextKey()}`;
    const id = newId("event");
    const body = JSON.stringify({
      v: 1,
      type: "message.posted",
      id,
      ts,
      seq,
      workspace_id: ws,
      space_id: spc,
      idempotency_key: key,
      actor: { kind: "harness", id: "hrn_01JBENCHBENCHBENCHBENCHBENC" },
      text: `${key} step three done`,
    });
    const hash = createHash("sha256").update(body).digest("hex");
    return {
      workspace_id: ws,
      seq,
      id,
      type: "message.posted",
      space_id: spc,
      prev_seq: seq - 1,
      run_id: null,
      idempotency_key: key,
      body_hash: hash,
      body,
      ts,
    };
  });
}

type Tx = (n: number) => Promise<void>;

/** Closed loop over `tx`: `clients` callers, each starting its next transaction when the last commits. */
async function loop(c: BaselineCase, seconds: number, quietWait: number, tx: Tx) {
  const busyBefore = await waitQuiet(quietWait);
  const warmUntil = performance.now() + Math.min(1000, seconds * 200);
  await Promise.all(
    Array.from({ length: c.clients }, async () => {
      for (let i = 0; i < 100_000 && performance.now() < warmUntil; i++) await tx(c.perTx);
    }),
  );
  const lat: number[] = [];
  let events = 0;
  const meter = usageMeter();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  const bound = Math.ceil((seconds * 200_000) / c.perTx / c.clients);
  await Promise.all(
    Array.from({ length: c.clients }, async () => {
      for (let i = 0; i < bound && performance.now() < until; i++) {
        const t = performance.now();
        await tx(c.perTx);
        lat.push(performance.now() - t);
        events += c.perTx;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  return { events, eventsPerSec: events / wall, lat: summarize(lat), usage: meter.stop(), busyBefore };
}

export async function pgBaseline(
  admin: PgAdmin,
  c: BaselineCase,
  seconds: number,
  quietWait: number,
): Promise<BaselineResult> {
  const { url } = await admin.freshDatabase(`base_${c.key}`);
  const sql = postgres(url, { max: c.clients, onnotice: () => {} });
  try {
    for (const d of DDL) await sql.unsafe(d);
    const ws = newId("workspace");
    const spc = newId("space");
    await sql`insert into bench_counters (workspace_id) values (${ws})`;
    await admin.checkpoint();
    let k = 0;
    const nextKey = () => ++k;
    const r = await loop(c, seconds, quietWait, async (n) => {
      await sql.begin(async (tx) => {
        const [h] =
          await tx`update bench_counters set seq_head = seq_head + ${n} where workspace_id = ${ws} returning seq_head`;
        await tx`insert into bench_events ${tx(rows(ws, spc, Number(h.seq_head), n, nextKey), ...COLS)}`;
      });
    });
    const [chk] = await sql`select count(*)::int as n, max(seq)::int as m from bench_events`;
    return {
      db: "postgres",
      case: c,
      ...r,
      check:
        chk.n === k && chk.m === k
          ? `${k} rows, seq 1..${k}`
          : `MISMATCH ${chk.n} rows, max seq ${chk.m}, ${k} written`,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function pgliteBaseline(c: BaselineCase, seconds: number, quietWait: number): Promise<BaselineResult> {
  const { PGlite } = await import("@electric-sql/pglite");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `chips-bench-base-${c.key}-`));
  const db = await PGlite.create({ dataDir: path.join(dir, "pgdata") });
  try {
    for (const d of DDL) await db.exec(d);
    const ws = newId("workspace");
    const spc = newId("space");
    await db.query(`insert into bench_counters (workspace_id) values ($1)`, [ws]);
    let k = 0;
    const nextKey = () => ++k;
    const r = await loop(c, seconds, quietWait, async (n) => {
      await db.transaction(async (tx) => {
        const h = await tx.query<{ seq_head: number }>(
          `update bench_counters set seq_head = seq_head + $2 where workspace_id = $1 returning seq_head`,
          [ws, n],
        );
        const rs = rows(ws, spc, Number(h.rows[0].seq_head), n, nextKey);
        const values = rs.map((_, i) => `(${COLS.map((_, j) => `$${i * COLS.length + j + 1}`).join(",")})`).join(",");
        await tx.query(
          `insert into bench_events (${COLS.join(",")}) values ${values}`,
          rs.flatMap((row) => COLS.map((col) => row[col])),
        );
      });
    });
    const chk = await db.query<{ n: number; m: number }>(
      `select count(*)::int as n, max(seq)::int as m from bench_events`,
    );
    const { n, m } = chk.rows[0];
    return {
      db: "pglite",
      case: c,
      ...r,
      check: n === k && m === k ? `${k} rows, seq 1..${k}` : `MISMATCH ${n} rows, max seq ${m}, ${k} written`,
    };
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
