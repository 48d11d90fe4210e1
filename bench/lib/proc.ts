import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface Child {
  proc: ChildProcess;
  url: string;
  dataDir: string;
  /** The child's CPU time so far (user + system), ms, from /proc. */
  cpuMs(): number;
  output(): string;
  /** Profile a window of the child's CPU (needs `profileDir` at spawn): start, then stop → the .cpuprofile written. */
  profileStart(): Promise<void>;
  profileStop(name: string): Promise<string | null>;
  stop(): Promise<void>;
}

export interface SpawnOpts {
  /** Script relative to the repo root (server.ts, or the baseline). */
  script: string;
  /** Another checkout to run the script from (an A/B against another commit); this one by default. */
  root?: string;
  env?: Record<string, string>;
  /** Extra node flags, say `--cpu-prof`. */
  nodeArgs?: string[];
  /** Fresh data dir (made here when left out). */
  dataDir?: string;
  readyPattern?: RegExp;
  startTimeoutMs?: number;
  /** Arm bench/lib/prof-hook.ts in the child: CPU profiles of chosen windows land here. */
  profileDir?: string;
  /** More bench hooks (.ts files) to `--import` into the child, after tsx. */
  hooks?: string[];
}

export const tmpDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** CPU ms (utime + stime) of a pid, or NaN when /proc is not there. */
export function pidCpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_MS; // fields 14 and 15 of stat(5)
  } catch {
    return NaN;
  }
}

/** A node child on a free loopback port; resolves once it printed its listening line. */
export async function spawnNode(o: SpawnOpts): Promise<Child> {
  const dataDir = o.dataDir ?? tmpDir("chips-rt-");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    CHIPS_DATA_DIR: dataDir,
    CHIPS_RATE_LIMIT: "0",
    CHIPS_BANNER: "0",
    CHIPS_WEB: "0",
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    ...o.env,
  };
  if (!o.env?.DATABASE_URL) delete env.DATABASE_URL;
  const hook = [...(o.profileDir ? [path.join(import.meta.dirname, "prof-hook.ts")] : []), ...(o.hooks ?? [])].flatMap(
    (f) => ["--import", pathToFileURL(f).href],
  );
  if (o.profileDir) env.CHIPS_BENCH_PROF_DIR = o.profileDir;
  const root = o.root ?? ROOT;
  const proc = spawn(process.execPath, [...(o.nodeArgs ?? []), "--import", "tsx", ...hook, path.join(root, o.script)], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 100_000) out = out.slice(-50_000);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const pattern = o.readyPattern ?? /(?:Chips is listening on|listening on) (http:\/\/\S+)/;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`${o.script} did not start in time:\n${out}`));
    }, o.startTimeoutMs ?? 120_000);
    const check = () => {
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout!.off("data", check);
        resolve(m[1]);
      }
    };
    proc.stdout!.on("data", check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${o.script} exited before serving:\n${out}`));
    });
  }).catch((e) => {
    if (!o.dataDir) rmrf(dataDir); // made here: leave nothing behind
    throw e;
  });
  return {
    proc,
    url,
    dataDir,
    cpuMs: () => pidCpuMs(proc.pid),
    output: () => out,
    async profileStart() {
      if (!o.profileDir) return;
      proc.kill("SIGUSR2");
      await waitFile(path.join(o.profileDir, `${proc.pid}.started`));
    },
    async profileStop(name) {
      if (!o.profileDir) return null;
      const before = new Set(fs.readdirSync(o.profileDir));
      proc.kill("SIGUSR2");
      const found = await waitFor(() =>
        fs
          .readdirSync(o.profileDir!)
          .find((f) => f.startsWith(`${proc.pid}-`) && /\.(cpu|heap)profile$/.test(f) && !before.has(f)),
      );
      if (!found) return null;
      const to = path.join(o.profileDir, `${name}${path.extname(found)}`);
      fs.renameSync(path.join(o.profileDir, found), to);
      return to;
    },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * A server started on a data directory a first start of it initialized, as any server is after
 * its first boot; the measured one resumes it. Why memory benches need this: on a fresh
 * directory PGlite runs initdb in a second, temporary PGlite inside the server's worker thread,
 * and its ~330 MB of mappings (a 189 MB WASM memory, 128 + 38 MB beside it, /proc/PID/smaps)
 * stay until that thread's next major GC — 20–30 s into load, never in 60 s idle — so RSS read
 * from a fresh start falls by that much (the soak's −37.5 %, negative RSS per idle socket).
 */
export async function spawnResumed(o: SpawnOpts): Promise<Child> {
  const url = o.env?.DATABASE_URL;
  const init = await spawnNode({ script: o.script, env: url ? { DATABASE_URL: url } : {}, dataDir: o.dataDir });
  await init.stop();
  try {
    return await spawnNode({ ...o, dataDir: init.dataDir });
  } catch (e) {
    if (!o.dataDir) rmrf(init.dataDir);
    throw e;
  }
}

async function waitFor<T>(f: () => T | undefined, timeoutMs = 30_000): Promise<T | undefined> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v || Date.now() > until) return v;
    await sleep(20);
  }
}

const waitFile = (file: string) => waitFor(() => fs.existsSync(file) || undefined);

export function rmrf(dir: string) {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function procStat(): { busy: number; total: number } {
  const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = f[3] + (f[4] ?? 0);
  return { busy: f.reduce((a, b) => a + b, 0) - idle, total: f.reduce((a, b) => a + b, 0) };
}

/**
 * The whole machine's CPU over a window, % of one core (200% = both of 2 cores busy), so a
 * run can say how much of the machine went to processes that are not part of it.
 */
export function machineMeter() {
  let s0: { busy: number; total: number } | null = null;
  try {
    s0 = procStat();
  } catch {
    s0 = null;
  }
  const cores = os.cpus().length;
  return {
    stop(): { busy: number; load1: number } {
      let busy = NaN;
      try {
        const s1 = procStat();
        if (s0) busy = ((s1.busy - s0.busy) / Math.max(1, s1.total - s0.total)) * cores * 100;
      } catch {
        /* not Linux */
      }
      return { busy, load1: os.loadavg()[0] };
    },
  };
}

/**
 * Wait (up to `maxS` seconds) for the machine to be quiet: under `busyPct` (% of one core)
 * over a 2 s sample. Other work on these 2 cores skews every figure; this only lowers the
 * odds. Returns the last sample's busy %.
 */
export async function waitQuiet(maxS: number, busyPct = 30): Promise<number> {
  const until = Date.now() + maxS * 1000;
  for (;;) {
    const m = machineMeter();
    await sleep(2000);
    const { busy } = m.stop();
    if (!(busy >= busyPct) || Date.now() >= until) return busy;
  }
}

/** CPU ms of every process now: pid → {comm, ms}. */
function allProcs(): Map<number, { comm: string; ms: number }> {
  const out = new Map<number, { comm: string; ms: number }>();
  let pids: string[] = [];
  try {
    pids = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const p of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(p), { comm, ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Who else used the CPU over a window: every process's CPU delta, ours (`mine` pids) left
 * out, summed by command name, as % of one core, biggest first.
 */
export function othersMeter() {
  const before = allProcs();
  const t0 = performance.now();
  return {
    stop(mine: (number | undefined)[]): { comm: string; pct: number }[] {
      const wall = performance.now() - t0;
      const skip = new Set(mine.filter((p): p is number => p !== undefined));
      const by = new Map<string, number>();
      for (const [pid, now] of allProcs()) {
        if (skip.has(pid)) continue;
        const d = now.ms - (before.get(pid)?.ms ?? 0);
        if (d > 0) by.set(now.comm, (by.get(now.comm) ?? 0) + d);
      }
      return [...by.entries()].map(([comm, ms]) => ({ comm, pct: (ms / wall) * 100 })).sort((a, b) => b.pct - a.pct);
    },
  };
}
