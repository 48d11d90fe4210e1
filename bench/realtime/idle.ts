/**
 * Memory per idle socket: N Socket.IO clients (default 5,000) connect to one room and join
 * it, then sit idle; the server's live heap after a full GC (bench/lib/mem-hook.ts) and its
 * resident set are read before and once settled after, and the growth divided by N. The same clients against the bare Socket.IO baseline
 * (bench/realtime/baseline-server.ts, no auth, no room state) in the same run give the floor
 * that Socket.IO itself costs: the ratio says what Chips adds per socket.
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { adminToken, createWorkspace, keepAlive, seedMessages } from "../lib/api";
import type { DbKind, PgCluster } from "../lib/pg";
import { rmrf, sleep, spawnResumed, tmpDir, type Child } from "../lib/proc";
import type { ClientsReport, ClientsStart } from "./clients";
import { ask } from "./fanout";

export interface IdleResult {
  label: string;
  sockets: number;
  connected: number;
  before: Mem;
  after: Mem;
  connectS: number;
}

/** MiB: the live heap after a full GC, external + array buffers, and the resident set. */
interface Mem {
  heap: number;
  external: number;
  rss: number;
}

const log = (s: string) => process.stderr.write(`[realtime idle] ${s}\n`);
const MIB = 2 ** 20;

function readMem(file: string): (Mem & { at: number }) | null {
  try {
    const m = JSON.parse(fs.readFileSync(file, "utf8"));
    return { at: m.at, heap: m.heapUsed / MIB, external: m.external / MIB, rss: m.rss / MIB };
  } catch {
    return null; // not written yet
  }
}

/** Memory once it stops moving: three fresh readings whose live heap is within 1 % (at most 60 s). */
async function settled(file: string): Promise<Mem> {
  const seen: (Mem & { at: number })[] = [];
  for (let i = 0; i < 120; i++) {
    const m = readMem(file);
    if (m && m.at !== seen[seen.length - 1]?.at) seen.push(m);
    const last = seen.slice(-3).map((x) => x.heap);
    if (last.length === 3 && Math.max(...last) - Math.min(...last) <= 0.01 * Math.max(...last))
      return seen[seen.length - 1];
    await sleep(500);
  }
  throw new Error(`memory did not settle: ${JSON.stringify(seen.slice(-3))}`);
}

async function measure(
  kind: "chips" | "baseline",
  srv: Child,
  memFile: string,
  sockets: number,
  procs: number,
): Promise<IdleResult> {
  let token: string | null = null;
  let spaceId = "space_idle";
  if (kind === "chips") {
    const agent = keepAlive(8);
    try {
      const ws = await createWorkspace(agent, srv.url, adminToken(srv.dataDir));
      await seedMessages(agent, srv.url, ws, 20);
      token = ws.person_token;
      spaceId = ws.space_id;
    } finally {
      agent.destroy();
    }
  }
  const before = await settled(memFile);
  const per = Array.from({ length: procs }, (_, i) => Math.floor(sockets / procs) + (i < sockets % procs ? 1 : 0));
  const children: ChildProcess[] = per.map(() =>
    fork(path.join(import.meta.dirname, "clients.ts"), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  try {
    const t0 = performance.now();
    await Promise.all(
      children.map((c, i) =>
        ask(c, { op: "start", url: srv.url, token, spaceId, n: per[i] } satisfies ClientsStart, "ready", 600_000),
      ),
    );
    const connectS = (performance.now() - t0) / 1000;
    const after = await settled(memFile);
    const reports = await Promise.all(
      children.map((c) => ask<ClientsReport>(c, { op: "drain", expect: 0, timeoutMs: 1000 }, "report", 60_000)),
    );
    // Every client was connected and joined when its process said "ready"; a socket the
    // server dropped while idle shows as a disconnect before the report was asked for.
    const connected = reports.reduce((a, r) => a + r.sockets.length, 0);
    return { label: kind === "chips" ? "Chips" : "bare Socket.IO", sockets, connected, before, after, connectS };
  } finally {
    for (const c of children) c.kill();
  }
}

/** Idle sockets on Chips and on the bare baseline, for one database kind; prints a table. */
export async function runIdleSockets(db: DbKind, pg: PgCluster | null, sockets: number, procs: number) {
  const out: IdleResult[] = [];
  for (const kind of ["chips", "baseline"] as const) {
    const env: Record<string, string> = {};
    if (db === "postgres" && kind === "chips") env.DATABASE_URL = await pg!.createDb(`idle_${sockets}`);
    const memFile = path.join(tmpDir("chips-idle-"), "mem.json");
    env.CHIPS_BENCH_MEM_FILE = memFile;
    // Resumed, not fresh: a fresh PGlite directory's initdb leaves ~330 MB that goes at the worker's first major GC.
    const srv = await spawnResumed({
      script: kind === "chips" ? "server.ts" : "bench/realtime/baseline-server.ts",
      env,
      nodeArgs: ["--expose-gc"],
      hooks: [path.join(import.meta.dirname, "../lib/mem-hook.ts")],
    });
    try {
      log(`${db} ${kind}: ${sockets} sockets in ${procs} client process(es)`);
      out.push(await measure(kind, srv, memFile, sockets, procs));
    } finally {
      await srv.stop();
      rmrf(srv.dataDir);
      rmrf(path.dirname(memFile));
    }
  }
  const [chips, base] = out;
  const per = (r: IdleResult, k: keyof Mem) => ((r.after[k] - r.before[k]) * 1024) / r.sockets;
  console.log(`\n${db}: memory per idle socket (${sockets} sockets joined to one room)`);
  console.log("server          connected  heap before→after MB  heap KiB/socket  RSS KiB/socket  connect s");
  for (const r of out)
    console.log(
      `${r.label.padEnd(16)}${String(r.connected).padStart(9)}  ${`${r.before.heap.toFixed(0)}→${r.after.heap.toFixed(0)}`.padStart(20)}  ${per(r, "heap").toFixed(1).padStart(15)}  ${per(r, "rss").toFixed(1).padStart(14)}  ${r.connectS.toFixed(1).padStart(9)}`,
    );
  console.log(`Chips / bare Socket.IO, live heap per socket: ${(per(chips, "heap") / per(base, "heap")).toFixed(2)}×`);
  return out;
}
