/**
 * The soak's memory verdict: the server's RSS and live heap (after a full GC, bench/lib/mem-hook.ts)
 * sampled every second from the moment the server is up, and judged over the steady part only.
 *
 * Why not "first 10 s against last 10 s": on PGlite the first seconds hold start-up memory the
 * process gives back as it settles, idle or not (the soak before this read −37.5 % for it), so
 * a first window measures start-up, not the soak. The rule, printed with every verdict: the soak's
 * first `warm` seconds are warm-up; the settled baseline is the mean of the 10 s after them;
 * every later 10 s window's mean must lie within ±10 % of it. The first sample, the idle samples
 * before the soak and every 10 s window are printed too, so a fall or a climb is seen whatever
 * the verdict says.
 */
import fs from "node:fs";
import { monoMs } from "../lib/hist";

const MIB = 2 ** 20;
const WINDOW_S = 10;
const AIM = 0.1;

export interface MemSample {
  /** Seconds since the sampler started. */
  t: number;
  heap: number;
  rss: number;
}

/** Every second, the newest reading mem-hook wrote, until stopped; `mark()` notes when the soak began. */
export function memSampler(file: string) {
  const samples: MemSample[] = [];
  const t0 = monoMs();
  const timer = setInterval(() => {
    let m: { heapUsed: number; rss: number };
    try {
      m = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (e) {
      // Not written yet (the hook writes every 500 ms, atomically); anything else is a real fault.
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      throw e;
    }
    samples.push({ t: (monoMs() - t0) / 1000, heap: m.heapUsed / MIB, rss: m.rss / MIB });
  }, 1000);
  return {
    now: () => (monoMs() - t0) / 1000,
    stop: () => (clearInterval(timer), samples),
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

/** Least-squares slope of `key` over the samples, MB per minute: a climb the ±10 % windows may still hold. */
function slopePerMin(samples: MemSample[], key: "rss" | "heap") {
  const t = mean(samples.map((s) => s.t));
  const v = mean(samples.map((s) => s[key]));
  const num = samples.reduce((a, s) => a + (s.t - t) * (s[key] - v), 0);
  const den = samples.reduce((a, s) => a + (s.t - t) ** 2, 0);
  return den > 0 ? (num / den) * 60 : 0;
}

/**
 * Means of `key` over the soak: the warm-up as one window, then 10 s windows (seconds on the
 * soak's clock; a trailing part shorter than 10 s is left out).
 */
function windows(samples: MemSample[], key: "rss" | "heap", soakAt: number, soakEnd: number, warm: number) {
  const edges = warm > 0 ? [0, warm] : [0];
  while (edges.at(-1)! + WINDOW_S <= soakEnd - soakAt + 0.5) edges.push(edges.at(-1)! + WINDOW_S);
  const out: { from: number; to: number; mean: number }[] = [];
  for (let i = 1; i < edges.length; i++) {
    const xs = samples.filter((s) => s.t - soakAt > edges[i - 1] && s.t - soakAt <= edges[i]).map((s) => s[key]);
    if (xs.length) out.push({ from: edges[i - 1], to: edges[i], mean: mean(xs) });
  }
  return out;
}

/** Print the trace and the verdict for RSS and live heap; `soakAt`/`soakEnd` on the sampler's clock. */
export function memVerdict(samples: MemSample[], soakAt: number, soakEnd: number, warm: number) {
  const idle = samples.filter((s) => s.t <= soakAt);
  const first = samples.find((s) => s.t > soakAt) ?? samples[0];
  console.log(
    `  memory rule: the soak's first ${warm} s are warm-up; baseline = mean of the next ${WINDOW_S} s; ` +
      `every later ${WINDOW_S} s window's mean within ±${AIM * 100} % of it (aim)`,
  );
  if (idle.length)
    console.log(
      `  idle before the soak (${idle.length} readings over ${soakAt.toFixed(0)} s): RSS ${idle[0].rss.toFixed(0)} → ${idle.at(-1)!.rss.toFixed(0)} MB,` +
        ` live heap ${idle[0].heap.toFixed(1)} → ${idle.at(-1)!.heap.toFixed(1)} MB`,
    );
  for (const key of ["rss", "heap"] as const) {
    const w = windows(samples, key, soakAt, soakEnd, warm);
    const base = w.find((x) => x.from === warm);
    const fmt = (v: number) => (key === "rss" ? v.toFixed(0) : v.toFixed(1));
    const name = key === "rss" ? "RSS" : "live heap";
    const trace = w.map((x) => `${x.from}–${x.to} s ${fmt(x.mean)}`).join(", ");
    if (!base) {
      console.log(`  ${name} per ${WINDOW_S} s (MB): ${trace}; too short for a settled baseline after ${warm} s`);
      continue;
    }
    const later = w.filter((x) => x.from > warm);
    const dev = later.map((x) => x.mean / base.mean - 1);
    const worst = dev.reduce((a, d) => (Math.abs(d) > Math.abs(a) ? d : a), 0);
    const last = dev.at(-1) ?? 0;
    const ok = later.length > 0 && dev.every((d) => Math.abs(d) <= AIM);
    const pc = (d: number) => `${d >= 0 ? "+" : ""}${(d * 100).toFixed(1)} %`;
    const slope = slopePerMin(
      samples.filter((s) => s.t - soakAt > warm && s.t <= soakEnd),
      key,
    );
    console.log(`  ${name} per ${WINDOW_S} s of the soak (MB): ${trace}`);
    console.log(
      `    first soak sample ${fmt(first[key])} MB; settled baseline (${warm}–${warm + WINDOW_S} s) ${fmt(base.mean)} MB;` +
        ` last window ${pc(last)}, widest ${pc(worst)}, trend after warm-up ${slope >= 0 ? "+" : ""}${slope.toFixed(key === "rss" ? 0 : 2)} MB/min → ${later.length === 0 ? "no window after the baseline" : ok ? "flat within ±10 %: met" : "**outside ±10 %: missed**"}`,
    );
  }
}
