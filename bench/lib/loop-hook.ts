/**
 * Loaded into a server child with `--import` (bench only): what the main thread lost and to
 * what, on the monotonic clock every process shares — each GC pause (its kind), each stall
 * of the event loop (a 2 ms timer that ran more than 10 ms late), and its RSS once a second (what
 * the heap's headroom between full GCs costs). Appended to
 * CHIPS_BENCH_LOOP_FILE once a second, with a line that says how far the file reaches, so a
 * bench sums exactly its window (`loopSummary`, bench/lib/loop.ts).
 */
import fs from "node:fs";
import { PerformanceObserver, performance } from "node:perf_hooks";

const file = process.env.CHIPS_BENCH_LOOP_FILE;
if (file) {
  const mono = () => Number(process.hrtime.bigint()) / 1e6;
  const origin = mono() - performance.now();
  const lines: string[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
      lines.push(JSON.stringify({ t: "gc", kind, at: e.startTime + origin, ms: e.duration }));
    }
  }).observe({ entryTypes: ["gc"] });
  let last = mono();
  setInterval(() => {
    const now = mono();
    if (now - last > 12) lines.push(JSON.stringify({ t: "stall", at: last, ms: now - last - 2 }));
    last = now;
  }, 2).unref();
  setInterval(() => {
    lines.push(JSON.stringify({ t: "rss", at: mono(), mib: process.memoryUsage.rss() / 2 ** 20 }));
    lines.push(JSON.stringify({ t: "upto", at: mono() }));
    fs.appendFileSync(file, lines.splice(0).join("\n") + "\n");
  }, 1000).unref();
}
