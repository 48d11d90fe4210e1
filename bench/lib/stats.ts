import fs from "node:fs";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";

/** Latency summary of one measured phase, in milliseconds. */
export interface Latency {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samples: number[]): Latency {
  const s = Float64Array.from(samples).sort();
  const arr = Array.from(s);
  return {
    p50: percentile(arr, 50),
    p99: percentile(arr, 99),
    max: arr.length ? arr[arr.length - 1] : NaN,
    n: arr.length,
  };
}

/** CPU of this process and of the whole machine over one phase, and this event loop's delay. */
export interface Usage {
  /** This process's CPU as % of one core. */
  selfCpu: number;
  /** All cores busy as % of one core (200% = both of 2 cores saturated). */
  machineCpu: number;
  /** This process's event-loop delay, ms. */
  loopP99: number;
  loopMax: number;
}

function procStat(): { busy: number; total: number } {
  const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0];
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number); // guest time is already in user
  const idle = f[3] + (f[4] ?? 0); // idle + iowait
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Start measuring this process's CPU, the machine's CPU and this event loop; `stop()` reads them. */
export function usageMeter() {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let stat0: { busy: number; total: number } | null = null;
  try {
    stat0 = procStat();
  } catch {
    stat0 = null; // not Linux: machine CPU is reported as NaN
  }
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  return {
    stop(): Usage {
      loop.disable();
      const wallMs = performance.now() - t0;
      const c = process.cpuUsage(cpu0);
      let machineCpu = NaN;
      if (stat0) {
        const s = procStat();
        const cores = os.cpus().length || 1;
        machineCpu = ((s.busy - stat0.busy) / Math.max(1, s.total - stat0.total)) * 100 * cores;
      }
      return {
        selfCpu: ((c.user + c.system) / 1000 / wallMs) * 100,
        machineCpu,
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
      };
    },
  };
}

export const fmt = {
  int: (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—"),
  ms: (n: number) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)) : "—"),
  pct: (n: number) => (Number.isFinite(n) ? `${Math.round(n)}%` : "—"),
  ratio: (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "—"),
  num1: (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "—"),
};

/** A Markdown table (pasteable into docs/PERFORMANCE.md), columns padded for the terminal. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|")}|`;
  return [line(headers), rule, ...rows.map(line)].join("\n");
}

/** Cores busy (as % of one core) over `ms`, from /proc/stat; NaN where there is none. */
export async function machineBusy(ms: number): Promise<number> {
  try {
    const a = procStat();
    await new Promise((r) => setTimeout(r, ms));
    const b = procStat();
    return ((b.busy - a.busy) / Math.max(1, b.total - a.total)) * 100 * (os.cpus().length || 1);
  } catch {
    return NaN;
  }
}

/**
 * Other work on a shared 2-core machine wrecks the figures: wait (at most `maxSeconds`) for
 * less than `threshold`% busy over half a second, and return what was last seen so the
 * report can flag a noisy run.
 */
export async function waitQuiet(maxSeconds: number, threshold = 30): Promise<number> {
  let busy = await machineBusy(500);
  for (let i = 0; busy > threshold && i < maxSeconds * 2; i++) busy = await machineBusy(500);
  return busy;
}
