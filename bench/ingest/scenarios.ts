import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { newId } from "../../lib/core/protocol";
import { Client } from "../lib/http";
import type { PgAdmin } from "../lib/pg-watch";
import { statementLog, type StatementProfile } from "../lib/pg-statements";
import type { ProbeReport } from "../lib/probe";
import { spawnServer } from "../lib/server-child";
import { summarize, usageMeter, waitQuiet, type Latency, type Usage } from "../lib/stats";

export type DbKind = "pglite" | "postgres";

export interface Scenario {
  key: string;
  label: string;
  clients: number;
  /** Events per request: 1 posts one event, more posts `{"events": [...]}`. */
  batch: number;
  /** The driver-only baseline this is compared with, per database. */
  baseline: Record<DbKind, string>;
}

/** One busy workspace, one harness token, closed-loop clients. */
export const INGEST_SCENARIOS: Scenario[] = [
  {
    key: "single-1",
    label: "single events, 1 client",
    clients: 1,
    batch: 1,
    baseline: { postgres: "tx1-c1", pglite: "tx1-c1" },
  },
  {
    key: "single-16",
    label: "single events, 16 clients",
    clients: 16,
    batch: 1,
    baseline: { postgres: "tx1-c16", pglite: "tx1-c1" },
  },
  {
    key: "batch100-4",
    label: "batches of 100, 4 clients",
    clients: 4,
    batch: 100,
    baseline: { postgres: "tx50-c4", pglite: "tx50-c1" },
  },
];

export interface Verification {
  ok: boolean;
  detail: string;
  stored: number;
  bodyBytes: number;
  /** Events per commit judged from the log: one commit stamps one `ts` on all its events. */
  eventsPerTs: number;
}

export interface IngestResult {
  db: DbKind;
  scenario: Scenario;
  seconds: number;
  events: number;
  requests: number;
  eventsPerSec: number;
  lat: Latency;
  errors: Record<string, number>;
  acked: number;
  verify: Verification;
  server: ProbeReport;
  client: Usage;
  /** Cores busy (% of one) just before the warm-up, with the server idle: other work on the machine. */
  busyBefore: number;
  /** Postgres only: write transactions in the window (next-xid delta), and backend states. */
  commits?: number;
  waits?: { samples: number; states: [string, number][] };
  /** Postgres with --profile: time per statement. */
  statements?: StatementProfile;
}

export interface IngestOptions {
  seconds: number;
  pg?: PgAdmin;
  profileDir?: string;
  /** The cluster's directory (its `log` file), for the statement profile. */
  clusterDir?: string;
  /** Seconds to wait at most for a quiet machine before each scenario. */
  quietWait: number;
  log: (line: string) => void;
}

/** With it a stored event is ~330 bytes (the ids are long): the size of a real one, so the figures mean something. */
const PAD = "step three done";

export async function runIngestScenario(db: DbKind, sc: Scenario, o: IngestOptions): Promise<IngestResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `chips-bench-${sc.key}-`));
  try {
    return await measure(db, sc, o, dataDir);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measure(db: DbKind, sc: Scenario, o: IngestOptions, dataDir: string): Promise<IngestResult> {
  let dbName: string | undefined;
  let databaseUrl: string | undefined;
  if (db === "postgres") {
    if (!o.pg) throw new Error("postgres scenarios need the bench cluster");
    ({ name: dbName, url: databaseUrl } = await o.pg.freshDatabase(`bench_${sc.key}`));
  }
  const server = await spawnServer({ dataDir, databaseUrl });
  const client = new Client(server.url, sc.clients + 2);
  try {
    const ws = await client.json("POST", "/api/v1/admin/workspaces", server.adminToken, {}, [201]);
    const counter = { acked: 0, errors: {} as Record<string, number> };
    const make = mkEvents(ws, sc.batch);

    const busyBefore = await waitQuiet(o.quietWait);
    const warm = Math.min(1.5, Math.max(0.5, o.seconds * 0.2));
    await drive(client, ws.token, sc, make, warm, null, counter);
    if (o.pg) await o.pg.checkpoint();

    const profileFile = o.profileDir ? path.join(o.profileDir, `${db}-${sc.key}.cpuprofile`) : undefined;
    const stmts =
      o.pg && dbName && o.clusterDir && o.profileDir ? await statementLog(o.pg, o.clusterDir, dbName) : null;
    await server.startWindow(profileFile);
    const watch = o.pg && dbName ? o.pg.watch(dbName) : null;
    const xid0 = o.pg ? await o.pg.nextXid() : 0;
    const meter = usageMeter();
    const lat: number[] = [];
    const acked0 = counter.acked;
    const t0 = performance.now();
    const requests = await drive(client, ws.token, sc, make, o.seconds, lat, counter);
    const wall = (performance.now() - t0) / 1000;
    const clientUsage = meter.stop();
    const xid1 = o.pg ? await o.pg.nextXid() : 0;
    const waits = watch ? await watch.stop() : undefined;
    const serverUsage = await server.endWindow();
    const statements = stmts ? await stmts.stop() : undefined;
    const events = counter.acked - acked0;

    const verify = await verifyLog(client, ws, counter.acked);
    o.log(`  ${sc.key}: ${verify.ok ? "verified" : "VERIFY FAILED"} — ${verify.detail}`);
    return {
      db,
      scenario: sc,
      seconds: wall,
      events,
      requests,
      eventsPerSec: events / wall,
      lat: summarize(lat),
      errors: counter.errors,
      acked: counter.acked,
      verify,
      server: serverUsage,
      client: clientUsage,
      busyBefore,
      commits: o.pg ? xid1 - xid0 : undefined,
      waits,
      statements,
    };
  } catch (e) {
    o.log(`  server output (tail):\n${server.output().slice(-3000)}`);
    throw e;
  } finally {
    client.close();
    await server.stop();
  }
}

type Ws = { workspace_id: string; space_id: string; harness_id: string; token: string };

/** A request body of `n` fresh message events; every event has its own idempotency key. */
function mkEvents(ws: Ws, n: number) {
  let k = 0;
  const one = () => {
    const key = `bench-${++k}`;
    return {
      v: 1,
      type: "message.posted",
      id: newId("event"),
      workspace_id: ws.workspace_id,
      space_id: ws.space_id,
      actor: { kind: "harness", id: ws.harness_id },
      idempotency_key: key,
      text: `${key} ${PAD}`,
    };
  };
  return () => JSON.stringify(n === 1 ? one() : { events: Array.from({ length: n }, one) });
}

/**
 * Closed loop: each of `sc.clients` workers posts, waits for the answer, posts again, until
 * the time is up (or a generous count bound). Returns requests sent; latencies go to `lat`.
 */
async function drive(
  c: Client,
  token: string,
  sc: Scenario,
  make: () => string,
  seconds: number,
  lat: number[] | null,
  counter: { acked: number; errors: Record<string, number> },
): Promise<number> {
  const until = performance.now() + seconds * 1000;
  const maxPerWorker = Math.ceil((seconds * 200_000) / sc.batch / sc.clients);
  let requests = 0;
  const worker = async () => {
    for (let i = 0; i < maxPerWorker && performance.now() < until; i++) {
      const body = make();
      const t = performance.now();
      let status = 0;
      let text = "";
      try {
        ({ status, text } = await c.request("POST", "/api/v1/events", token, body));
      } catch (e) {
        text = e instanceof Error ? e.message : String(e);
      }
      lat?.push(performance.now() - t);
      requests++;
      if (status === 201) counter.acked += sc.batch;
      else {
        const code = /"code":"([a-z_]+)"/.exec(text)?.[1] ?? text.slice(0, 60);
        const k = `${status} ${code}`;
        counter.errors[k] = (counter.errors[k] ?? 0) + 1;
        if (status === 503) await new Promise((r) => setTimeout(r, 50)); // overloaded: back off a little
      }
    }
  };
  await Promise.all(Array.from({ length: sc.clients }, worker));
  return requests;
}

/** Read the whole log back: seqs 1..N with no gap, N = events acknowledged, keys unique. */
async function verifyLog(c: Client, ws: Ws, acked: number): Promise<Verification> {
  let after = 0;
  let expect = 1;
  let stored = 0;
  let bytes = 0;
  let commits = 0;
  let lastTs = "";
  const keys = new Set<string>();
  const problems: string[] = [];
  for (let page = 0; page < 100_000; page++) {
    const r = await c.json("GET", `/api/v1/workspaces/${ws.workspace_id}/events?after=${after}&limit=1000`, ws.token);
    for (const e of r.events as { seq: number; ts: string; idempotency_key: string }[]) {
      if (e.seq !== expect && problems.length < 5) problems.push(`seq ${e.seq} where ${expect} was expected`);
      expect = e.seq + 1;
      stored++;
      bytes += JSON.stringify(e).length;
      keys.add(e.idempotency_key);
      if (e.ts !== lastTs) commits++;
      lastTs = e.ts;
    }
    if (r.events.length < 1000) break;
    after = r.next_after;
  }
  if (stored !== acked) problems.push(`${stored} stored but ${acked} acknowledged`);
  if (keys.size !== stored) problems.push(`${stored - keys.size} duplicate idempotency keys`);
  const ok = problems.length === 0;
  const detail = ok ? `${stored} events, seq 1..${stored} gap-free, count = acknowledged` : problems.join("; ");
  return {
    ok,
    detail,
    stored,
    bodyBytes: stored ? bytes / stored : NaN,
    eventsPerTs: commits ? stored / commits : NaN,
  };
}
