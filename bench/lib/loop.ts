import fs from "node:fs";
import { monoMs } from "./hist";
import { sleep } from "./proc";

/** A server child's main thread over a window (bench/lib/loop-hook.ts): its stalls, full GCs and peak RSS. */
export interface LoopSummary {
  /** Event-loop stalls over 10 ms: how many, and the time they held the loop. */
  stalls: number;
  stallMs: number;
  /** Mark-compact collections (old generation), counted by their final pause. */
  major: number;
  /** The highest RSS sampled (once a second), MiB. */
  peakRssMiB: number;
}

type Line =
  | { t: "rss"; at: number; mib: number }
  | { t: "gc"; kind: number; at: number; ms: number }
  | { t: "stall"; at: number; ms: number }
  | { t: "upto"; at: number };

const read = (file: string): Line[] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line)
    : [];

/** Sum what the hook wrote between `from` and `to` (ms on the monotonic clock), once it has written past `to`. */
export async function loopSummary(file: string, from: number, to: number): Promise<LoopSummary> {
  const deadline = monoMs() + 5000;
  let lines = read(file);
  while (!lines.some((l) => l.t === "upto" && l.at >= to)) {
    if (monoMs() > deadline) throw new Error(`${file}: the loop hook wrote nothing past the window`);
    await sleep(200);
    lines = read(file);
  }
  const s: LoopSummary = { stalls: 0, stallMs: 0, major: 0, peakRssMiB: 0 };
  for (const l of lines) {
    if (l.t === "upto" || l.at < from || l.at > to) continue;
    if (l.t === "rss") s.peakRssMiB = Math.max(s.peakRssMiB, l.mib);
    else if (l.t === "stall") {
      s.stalls++;
      s.stallMs += l.ms;
    } else if (l.kind === 4) s.major++;
  }
  return s;
}
