/**
 * Realtime bench: POST → Socket.IO arrival latency at 50 clients × 1,000 events/s and
 * 200 clients × 500 events/s, each beside a bare baseline (plain insert + plain io.emit)
 * in the same run; out-of-order / missing / duplicate deliveries; catch-up of 10,000
 * missed events. Never run in CI; prints numbers and ratios.
 *
 *   node --import tsx bench/realtime/main.ts [--db pglite|postgres|both] [--seconds 10]
 *        [--warmup 2] [--client-procs 2] [--reps 5] [--scenario 50x1000 ...]
 *        [--only fanout|catchup|stepup|idle] [--sockets 5000] [--quiet-wait S] [--profile [DIR]]
 *
 * The step-up (left out with --scenario) runs 50 clients at rising offered rates until a step
 * misses p99 ≤ 50 ms, on Chips and then on the bare server storing nothing (the ceiling this
 * machine allows the bench), and prints both highest rates held.
 *
 * The idle run (bench/realtime/idle.ts) connects --sockets clients to one room on Chips and on
 * the bare baseline and prints the server's memory per idle socket.
 *
 * --quiet-wait S: before each run, wait up to S seconds for the machine to be < 30% busy.
 *
 * --profile writes a CPU profile of every Chips server child (node --cpu-prof) and prints
 * where its time went; `node --import tsx bench/lib/profile.ts F.cpuprofile` reads one.
 */
import fs from "node:fs";
import path from "node:path";
import { flags, machine, num, one } from "../lib/args";
import { runRealtimeBench } from "./bench";
import { parseDbFlag, startPg } from "../lib/pg";
import { runIdleSockets } from "./idle";
import { tmpDir } from "../lib/proc";

async function main() {
  const f = flags();
  const scenarios = f.get("scenario")?.map((s) => {
    const m = /^(\d+)x(\d+)$/.exec(s);
    if (!m) throw new Error(`--scenario takes CLIENTSxRATE, like 50x1000 (not ${s})`);
    return { clients: Number(m[1]), rate: Number(m[2]) };
  });
  const prof = one(f, "profile");
  const profileDir = prof === undefined ? undefined : prof === "true" ? tmpDir("chips-rt-prof-") : path.resolve(prof);
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  console.log(machine());
  const opts = {
    dbs: parseDbFlag(one(f, "db")),
    seconds: num(f, "seconds", 10),
    warmup: num(f, "warmup", 2),
    clientProcs: num(f, "client-procs", 2),
    catchUpReps: num(f, "reps", 5),
    quietWait: Number(one(f, "quiet-wait") ?? 0),
    profileDir,
    scenarios,
    skip: {
      fanout: ["catchup", "stepup"].includes(one(f, "only") ?? ""),
      catchUp: ["fanout", "stepup"].includes(one(f, "only") ?? ""),
      stepUp: one(f, "only") === "catchup" || !!scenarios,
    },
  };
  console.log(
    `realtime bench: ${opts.dbs.join(" + ")}, ${opts.warmup} s warm-up + ${opts.seconds} s measured per run, clients in ${opts.clientProcs} child process(es)` +
      (profileDir ? `, CPU profiles in ${profileDir}` : ""),
  );
  const only = one(f, "only");
  if (only !== "idle") await runRealtimeBench(opts);
  if (only === undefined || only === "idle") {
    const pg = opts.dbs.includes("postgres") ? await startPg() : null;
    try {
      for (const db of opts.dbs) await runIdleSockets(db, pg, num(f, "sockets", 5000), opts.clientProcs);
    } finally {
      await pg?.stop();
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
