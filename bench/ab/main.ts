/**
 * `node --import tsx bench/ab/main.ts --base DIR [--windows 6] [--seconds 8] [--rate 400] [--workspaces 20] [--profile DIR]`:
 * the server's CPU per single-event POST, this checkout against another (DIR: a checkout of the
 * base commit with its node_modules), both on one throwaway PostgreSQL, in alternating windows
 * of the same open-loop load so both see the same machine. On a shared machine whose speed
 * moves 3× only the ratio of a pair of windows means anything, so that is what it prints.
 * `--profile DIR`: one more window of this checkout's server under the CPU profiler, summarized.
 */
import http from "node:http";
import { adminToken, createWorkspace, message, request, type Workspace } from "../lib/api";
import { flags, num, one } from "../lib/args";
import { startPg } from "../lib/pg";
import { rmrf, sleep, spawnNode, type Child } from "../lib/proc";
import { summarizeProfile } from "../lib/profile";
import { percentile } from "../lib/stats";

const f = flags();
const base = one(f, "base");
if (!base) throw new Error("--base DIR: a checkout of the commit to compare against");
const windows = num(f, "windows", 6);
const seconds = num(f, "seconds", 8);
const rate = num(f, "rate", 400);
const wsCount = num(f, "workspaces", 20);
const profileDir = one(f, "profile");

interface Side {
  name: string;
  srv: Child;
  agent: http.Agent;
  spaces: Workspace[];
}

/** Open-loop single-event POSTs at `rate`/s round the workspaces for `seconds`; the server's CPU ms an event stored. */
async function window(s: Side): Promise<{ cpuPerEvent: number; ok: number; failed: number }> {
  let ok = 0;
  let failed = 0;
  let n = 0;
  const inFlight: Promise<void>[] = [];
  const total = Math.round(rate * seconds);
  const cpu0 = s.srv.cpuMs();
  const t0 = performance.now();
  while (n < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
    for (; n < due; n++) {
      const ws = s.spaces[n % s.spaces.length];
      inFlight.push(
        request(s.agent, `${s.srv.url}/api/v1/events`, "POST", ws.token, message(ws, `ab ${n}`)).then(
          (r) => void (r.status === 201 ? ok++ : failed++),
          () => void failed++,
        ),
      );
    }
    await sleep(5);
  }
  await Promise.all(inFlight);
  return { cpuPerEvent: (s.srv.cpuMs() - cpu0) / Math.max(1, ok), ok, failed };
}

async function side(name: string, root: string | undefined, databaseUrl: string, prof?: string): Promise<Side> {
  const env = { DATABASE_URL: databaseUrl, CHIPS_LOG_LEVEL: "warn" };
  const srv = await spawnNode({ script: "server.ts", root, env, profileDir: prof });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
  const admin = adminToken(srv.dataDir);
  const spaces: Workspace[] = [];
  for (let i = 0; i < wsCount; i++) spaces.push(await createWorkspace(agent, srv.url, admin));
  // A harness that posts at all has its heads known; the first post of each pays the read.
  for (const ws of spaces) await request(agent, `${srv.url}/api/v1/events`, "POST", ws.token, message(ws, "warm"));
  return { name, srv, agent, spaces };
}

const pg = await startPg();
const sides: Side[] = [];
try {
  sides.push(await side("base", base, await pg.createDb("ab_base")));
  sides.push(await side("head", undefined, await pg.createDb("ab_head"), profileDir));
  for (const s of sides) await window(s); // JIT warm-up, not counted
  const ratios: number[] = [];
  const per: Record<string, number[]> = { base: [], head: [] };
  console.log(
    `${rate} single-event POSTs/s over ${wsCount} workspaces, ${seconds} s windows, PostgreSQL ${pg.version}`,
  );
  console.log("window | base ms/event | head ms/event | head/base | failed");
  for (let w = 0; w < windows; w++) {
    // Alternate who goes first, so a machine getting busier or quieter skews neither.
    const order = w % 2 ? [sides[1], sides[0]] : sides;
    const got: Record<string, Awaited<ReturnType<typeof window>>> = {};
    for (const s of order) got[s.name] = await window(s);
    per.base.push(got.base.cpuPerEvent);
    per.head.push(got.head.cpuPerEvent);
    ratios.push(got.head.cpuPerEvent / got.base.cpuPerEvent);
    console.log(
      `${w + 1} | ${got.base.cpuPerEvent.toFixed(3)} | ${got.head.cpuPerEvent.toFixed(3)} | ${ratios.at(-1)!.toFixed(2)} | ${got.base.failed}/${got.head.failed}`,
    );
  }
  const med = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `median: base ${med(per.base).toFixed(3)}, head ${med(per.head).toFixed(3)} ms/event; head/base ${med(ratios).toFixed(2)} (range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); of the means ${(mean(per.head) / mean(per.base)).toFixed(2)}`,
  );
  if (profileDir) {
    await sides[1].srv.profileStart();
    await window(sides[1]);
    const file = await sides[1].srv.profileStop("ab-head");
    if (file) console.log(summarizeProfile(file, 25));
  }
} finally {
  for (const s of sides) {
    s.agent.destroy();
    await s.srv.stop();
    rmrf(s.srv.dataDir);
  }
  await pg.stop();
}
