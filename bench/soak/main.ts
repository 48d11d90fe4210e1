/**
 * Soak bench: does Chips hold a rate for a minute, and does the dedupe stay cheap as a
 * workspace grows? Never run in CI.
 *
 *   node --import tsx bench/soak/main.ts [--db postgres|pglite|both] [--rate 250] [--seconds 60]
 *        [--warm 10] [--idle 10] [--grow 1000000] [--step 100000] [--quiet-wait S]
 *        (--seconds 0 / --grow 0 skip that part)
 *
 * 1. Soak: single-event POSTs at --rate for --seconds (open loop, bench/realtime/poster.ts).
 *    The server resumes a data directory a first start made (spawnResumed, bench/lib/proc.ts).
 *    Its live heap (after a full GC, bench/lib/mem-hook.ts) and RSS are sampled every second
 *    from its start, through --idle seconds without load, then the soak; flatness is judged
 *    after --warm seconds of it against the settled 10 s that follow (the rule and the trace
 *    are printed: bench/soak/memory.ts). Then the room is read back over HTTP: every
 *    acknowledged event there once, its seqs with no gap.
 * 2. Growth: the workspace is grown to --grow events in batches of 500; at every --step the
 *    dedupe is timed — a batch of 100 events already stored, posted again with the same keys
 *    (answered from the dedupe, nothing stored), 20 times — and p50/p95 printed per step with
 *    the ratio of each step to the first (aim: flat).
 */
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { count, flags, machine, num, one } from "../lib/args";
import { adminToken, createWorkspace, keepAlive, message, request, type Workspace } from "../lib/api";
import { monoMs, pctOf } from "../lib/hist";
import { parseDbFlag, startPg, type DbKind, type PgCluster } from "../lib/pg";
import { rmrf, sleep, spawnResumed, tmpDir, waitQuiet } from "../lib/proc";
import { postOpenLoop } from "../realtime/poster";
import { memSampler, memVerdict } from "./memory";

const log = (s: string) => process.stderr.write(`[soak] ${s}\n`);

/** The room's events over HTTP, pages of 1,000: [seq, id] in order. */
async function readRoom(agent: http.Agent, url: string, ws: Workspace): Promise<{ seq: number; id: string }[]> {
  const out: { seq: number; id: string }[] = [];
  for (let after = 0; ;) {
    const q = `${url}/api/v1/workspaces/${ws.workspace_id}/events?after=${after}&limit=1000&space=${ws.space_id}`;
    const r = await request(agent, q, "GET", ws.person_token);
    if (r.status !== 200) throw new Error(`read back: ${r.status} ${r.body.slice(0, 200)}`);
    const page = JSON.parse(r.body) as { events: { seq: number; id: string }[]; next_after: number };
    if (page.events.length === 0) return out;
    out.push(...page.events.map((e) => ({ seq: e.seq, id: e.id })));
    after = page.next_after;
  }
}

async function soak(
  agent: http.Agent,
  url: string,
  ws: Workspace,
  mem: ReturnType<typeof memSampler>,
  o: { rate: number; seconds: number; warm: number },
) {
  const before = (await readRoom(agent, url, ws)).length;
  const soakAt = mem.now();
  const post = await postOpenLoop(url, ws, o.rate, 0, o.seconds, 64);
  const soakEnd = mem.now();
  const samples = mem.stop();
  const room = await readRoom(agent, url, ws);
  const gaps = room.filter((e, i) => i > 0 && e.seq !== room[i - 1].seq + 1).length;
  const ids = new Set(room.map((e) => e.id));
  console.log(
    `soak: ${post.ok} stored of ${post.ok + post.failed} sent at ${post.rate.toFixed(0)}/s offered ${o.rate}/s` +
      ` (POST p50 ${post.post.pct(50).toFixed(1)} ms, p99 ${post.post.pct(99).toFixed(1)} ms, poster late p99 ${post.lagP99.toFixed(1)} ms)` +
      `; ${post.failed} failed, ${post.retried} retried (same key) after a reused keep-alive socket was reset` +
      (post.firstError ? `; first error: ${post.firstError}` : ""),
  );
  memVerdict(samples, soakAt, soakEnd, o.warm);
  console.log(
    `  read back: ${room.length} events, ${gaps} seq gaps, ${room.length - ids.size} duplicate ids,` +
      ` ${room.length - before === post.ok ? "every acknowledged event stored once" : `MISMATCH: ${post.ok} acknowledged`}`,
  );
}

/** Grow the workspace to `total` events; at every `step`, time re-posting 100 stored events. */
async function grow(agent: http.Agent, url: string, ws: Workspace, have: number, total: number, step: number) {
  console.log(`growth to ${total.toLocaleString("en")} events: a re-posted batch of 100 (all duplicates), 20 times`);
  console.log("events      p50 ms   p95 ms   × first step");
  let firstP50 = NaN;
  const probe = Array.from({ length: 100 }, (_, i) => message(ws, `dedupe probe ${i}`));
  const post = async (events: unknown[]) => {
    const r = await request(agent, `${url}/api/v1/events`, "POST", ws.token, { events }, 120_000);
    if (r.status !== 201 && r.status !== 200) throw new Error(`batch: ${r.status} ${r.body.slice(0, 300)}`);
  };
  await post(probe); // stored once; every later post of it is answered by the dedupe
  have += probe.length;
  for (let next = step; next <= total; next += step) {
    const t0 = monoMs();
    const from = have;
    while (have < next) {
      const k = Math.min(500, next - have);
      await post(Array.from({ length: k }, (_, i) => message(ws, `grow ${have + i} ${"lorem ipsum ".repeat(8)}`)));
      have += k;
    }
    const growS = (monoMs() - t0) / 1000;
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = monoMs();
      await post(probe);
      times.push(monoMs() - t);
    }
    const p50 = pctOf(times, 50);
    if (Number.isNaN(firstP50)) firstP50 = p50;
    console.log(
      `${next.toLocaleString("en").padStart(9)}  ${p50.toFixed(1).padStart(7)}  ${pctOf(times, 95).toFixed(1).padStart(7)}  ${(p50 / firstP50).toFixed(2).padStart(12)}` +
        (have > from
          ? `   (grew ${(have - from).toLocaleString("en")} in ${growS.toFixed(0)} s, ${((have - from) / growS).toFixed(0)} events/s)`
          : `   (already ${have.toLocaleString("en")}: the soak's)`),
    );
  }
}

async function runDb(
  db: DbKind,
  pg: PgCluster | null,
  o: { rate: number; seconds: number; warm: number; idle: number; grow: number; step: number; quietWait: number },
) {
  const dir = tmpDir("chips-soak-");
  const memFile = path.join(dir, "mem.json");
  const env: Record<string, string> = { CHIPS_BENCH_MEM_FILE: memFile };
  if (db === "postgres") env.DATABASE_URL = await pg!.createDb("soak");
  // Resumed, not fresh: a fresh PGlite directory's initdb leaves ~330 MB that goes at the worker's first major GC.
  const srv = await spawnResumed({
    script: "server.ts",
    env,
    nodeArgs: ["--expose-gc"],
    hooks: [path.join(import.meta.dirname, "../lib/mem-hook.ts")],
  });
  const agent = keepAlive(64);
  try {
    while (!fs.existsSync(memFile)) await sleep(100);
    // From here every second is sampled: the idle seconds before the soak show what start-up settling does without load.
    const mem = memSampler(memFile);
    const ws = await createWorkspace(agent, srv.url, adminToken(srv.dataDir));
    const busy = await waitQuiet(o.quietWait);
    await sleep(o.idle * 1000);
    console.log(
      `\n${db} (machine ${busy.toFixed(0)}% busy before, load ${fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
    );
    if (o.seconds > 0) await soak(agent, srv.url, ws, mem, o);
    else mem.stop();
    if (o.grow > 0) {
      const have = (await readRoom(agent, srv.url, ws)).length;
      await grow(agent, srv.url, ws, have, o.grow, o.step);
    }
  } finally {
    agent.destroy();
    await srv.stop();
    rmrf(srv.dataDir);
    rmrf(dir);
  }
}

async function main() {
  const f = flags();
  const o = {
    rate: num(f, "rate", 250),
    seconds: count(f, "seconds", 60),
    warm: count(f, "warm", 10),
    idle: count(f, "idle", 10),
    grow: count(f, "grow", 1_000_000),
    step: num(f, "step", 100_000),
    quietWait: num(f, "quiet-wait", 0),
  };
  const dbs = parseDbFlag(one(f, "db") ?? "postgres");
  const pg = dbs.includes("postgres") ? await startPg() : null;
  console.log(machine(pg?.version));
  log(`${dbs.join(" + ")}: ${o.seconds} s at ${o.rate}/s, then growth to ${o.grow} by ${o.step}`);
  try {
    for (const db of dbs) await runDb(db, pg, o);
  } finally {
    await pg?.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
