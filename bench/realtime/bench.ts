import { newId } from "@/lib/core/protocol";
import { adminToken, createWorkspace, keepAlive, message, request, seedMessages, type Workspace } from "../lib/api";
import { baselineCatchUp, chipsCatchUp, type CatchUpResult } from "./catchup";
import { runFanout, type FanoutResult } from "./fanout";
import { startPg, type DbKind, type PgCluster } from "../lib/pg";
import { summarizeProfile } from "../lib/profile";
import { rmrf, spawnNode, waitQuiet, type Child } from "../lib/proc";
import { aimsOf, printDb, type DbResult } from "./report";
import { held, printStepUp, STEP_CLIENTS, STEP_RATES } from "./stepup";

export interface RealtimeOpts {
  dbs: DbKind[];
  /** Measured seconds per fan-out run (after `warmup`). */
  seconds: number;
  warmup: number;
  clientProcs: number;
  catchUpReps: number;
  /** Write a CPU profile of each Chips server child and print its summary. */
  profileDir?: string;
  scenarios?: { clients: number; rate: number }[];
  /** Before each run, wait up to this many seconds for the machine to be quiet. */
  quietWait: number;
  /** Leave out the fan-out runs, the catch-up or the step-up. */
  skip?: { fanout?: boolean; catchUp?: boolean; stepUp?: boolean };
}

export const SCENARIOS = [
  { clients: 50, rate: 1000 },
  { clients: 200, rate: 500 },
];

const log = (s: string) => process.stderr.write(`[realtime] ${s}\n`);

/** Chips, the bare baseline on the same database, or the bare baseline storing nothing (the step-up's ceiling). */
type ServerKind = "chips" | "baseline" | "ceiling";

async function server(
  kind: ServerKind,
  db: DbKind,
  pg: PgCluster | null,
  tag: string,
  profileDir?: string,
): Promise<Child> {
  const env: Record<string, string> = {};
  if (kind === "ceiling") env.BASELINE_DB = "memory";
  else if (db === "postgres") env.DATABASE_URL = await pg!.createDb(`${kind}_${tag}`);
  return spawnNode({
    script: kind === "chips" ? "server.ts" : "bench/realtime/baseline-server.ts",
    env,
    profileDir: kind === "chips" ? profileDir : undefined,
  });
}

/** A workspace-shaped set of ids for the baseline (it checks nothing). */
const fakeWs = (): Workspace => ({
  workspace_id: newId("workspace"),
  space_id: newId("space"),
  harness_id: newId("harness"),
  token: "none",
  person_id: "",
  person_token: "",
  room_url: "",
});

async function fanout(
  kind: ServerKind,
  db: DbKind,
  pg: PgCluster | null,
  sc: { clients: number; rate: number },
  o: RealtimeOpts,
): Promise<FanoutResult> {
  const label = `${sc.clients} clients × ${sc.rate}/s`;
  const srv = await server(kind, db, pg, `${sc.clients}c`, o.profileDir);
  const agent = keepAlive(128);
  let profile: string | null = null;
  try {
    const ws = kind === "chips" ? await createWorkspace(agent, srv.url, adminToken(srv.dataDir)) : fakeWs();
    const busy = await waitQuiet(o.quietWait);
    log(`${db} ${kind}: ${label}, ${o.warmup}+${o.seconds} s (machine ${busy.toFixed(0)}% busy before)`);
    const window = {
      start: () => srv.profileStart(),
      stop: async () => void (profile = await srv.profileStop(`chips-${db}-${sc.clients}x${sc.rate}`)),
    };
    return await runFanout({
      label,
      url: srv.url,
      ws,
      socketToken: kind === "chips" ? ws.person_token : null,
      clients: sc.clients,
      clientProcs: o.clientProcs,
      rate: sc.rate,
      warmupS: o.warmup,
      seconds: o.seconds,
      serverPid: srv.proc.pid,
      window,
    });
  } finally {
    agent.destroy();
    await srv.stop();
    rmrf(srv.dataDir);
    if (profile) console.log(`\n${db} ${label}: Chips server, posting window: ${summarizeProfile(profile)}`);
  }
}

/** Rising offered rates at 50 clients until a step misses the aim: higher rates only queue more. */
async function stepUp(kind: "chips" | "ceiling", db: DbKind, pg: PgCluster | null, o: RealtimeOpts) {
  const steps: FanoutResult[] = [];
  for (const rate of STEP_RATES) {
    const r = await fanout(kind, db, pg, { clients: STEP_CLIENTS, rate }, o);
    steps.push(r);
    if (!held(r, kind === "chips")) break;
  }
  return steps;
}

async function catchUp(db: DbKind, pg: PgCluster | null, o: RealtimeOpts) {
  const total = 10_000;
  const agent = keepAlive(64);
  const chips = await server("chips", db, pg, "catchup", o.profileDir);
  let c: CatchUpResult;
  try {
    const ws = await createWorkspace(agent, chips.url, adminToken(chips.dataDir));
    log(`${db} catch-up: seeding ${total} events`);
    const head = await seedMessages(agent, chips.url, ws, total);
    const busy = await waitQuiet(o.quietWait);
    log(`${db} catch-up: measuring (machine ${busy.toFixed(0)}% busy before)`);
    await chips.profileStart();
    c = await chipsCatchUp(agent, chips.url, ws, total, head, o.catchUpReps);
    const f = await chips.profileStop(`chips-${db}-catchup`);
    if (f) console.log(`\n${db} catch-up: Chips server, catch-up window: ${summarizeProfile(f)}`);
  } finally {
    await chips.stop();
    rmrf(chips.dataDir);
  }
  const base = await server("baseline", db, pg, "catchup");
  try {
    const ws = fakeWs();
    let next = 0;
    const worker = async () => {
      while (next < total) {
        next++;
        await request(
          agent,
          `${base.url}/api/v1/events`,
          "POST",
          null,
          message(ws, `seeded ${next} ${"lorem ipsum dolor sit amet ".repeat(4)}`),
        );
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    return { c, b: await baselineCatchUp(base.url, ws, total, o.catchUpReps) };
  } finally {
    agent.destroy();
    await base.stop();
    rmrf(base.dataDir);
  }
}

/** The realtime bench: fan-out beside the bare baseline, then catch-up, per database kind. */
export async function runRealtimeBench(o: RealtimeOpts): Promise<DbResult[]> {
  const pg = o.dbs.includes("postgres") ? await startPg() : null;
  if (pg) log(`PostgreSQL ${pg.version}`);
  const out: DbResult[] = [];
  try {
    for (const db of o.dbs) {
      const rows: DbResult["rows"] = [];
      for (const sc of o.skip?.fanout ? [] : (o.scenarios ?? SCENARIOS)) {
        const chips = await fanout("chips", db, pg, sc, o);
        const base = await fanout("baseline", db, pg, sc, o);
        rows.push({ chips, base });
      }
      const stepAim = o.skip?.stepUp
        ? null
        : printStepUp(db, await stepUp("chips", db, pg, o), await stepUp("ceiling", db, pg, o));
      const cu = o.skip?.catchUp ? null : await catchUp(db, pg, o);
      const r: DbResult = {
        db,
        rows,
        catchUp: cu?.c ?? null,
        baseCatchUp: cu?.b ?? null,
        aims: [...aimsOf(rows, cu?.c ?? null), ...(stepAim ? [stepAim] : [])],
      };
      printDb(r);
      out.push(r);
    }
  } finally {
    await pg?.stop();
  }
  return out;
}
