/**
 * A latency histogram that merges across processes: 0.05 ms buckets up to 100 ms, then
 * 1 ms buckets up to 60 s (anything later lands in the last bucket; `max` stays exact).
 */
const FINE = 2000; // 0.05 ms × 2000 = 100 ms
const COARSE = 60_000;
const SIZE = FINE + COARSE;

export interface HistJson {
  counts: number[];
  n: number;
  max: number;
  sum: number;
}

export class Hist {
  counts = new Uint32Array(SIZE);
  n = 0;
  max = 0;
  sum = 0;

  add(ms: number): void {
    const v = ms < 0 ? 0 : ms;
    const i = v < 100 ? Math.floor(v * 20) : Math.min(SIZE - 1, FINE + Math.floor(v - 100));
    this.counts[i]++;
    this.n++;
    this.sum += v;
    if (v > this.max) this.max = v;
  }

  merge(o: Hist): void {
    for (let i = 0; i < SIZE; i++) this.counts[i] += o.counts[i];
    this.n += o.n;
    this.sum += o.sum;
    this.max = Math.max(this.max, o.max);
  }

  /** Nearest-rank percentile; the bucket's upper edge (an honest upper bound). */
  pct(p: number): number {
    if (!this.n) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.n));
    let seen = 0;
    for (let i = 0; i < SIZE; i++) {
      seen += this.counts[i];
      if (seen >= rank) return Math.min(this.max, i < FINE ? (i + 1) / 20 : 100 + (i - FINE + 1));
    }
    return this.max;
  }

  /** Sparse JSON (only non-empty buckets) for IPC. */
  toJSON(): HistJson {
    const counts: number[] = [];
    this.counts.forEach((c, i) => {
      if (c) counts.push(i, c);
    });
    return { counts, n: this.n, max: this.max, sum: this.sum };
  }

  static from(j: HistJson): Hist {
    const h = new Hist();
    for (let k = 0; k < j.counts.length; k += 2) h.counts[j.counts[k]] = j.counts[k + 1];
    h.n = j.n;
    h.max = j.max;
    h.sum = j.sum;
    return h;
  }
}

/** Nearest-rank percentile of plain samples. */
export function pctOf(samples: number[], p: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export const median = (xs: number[]) => pctOf(xs, 50);

/** Monotonic clock in ms, shared by every process on this machine (CLOCK_MONOTONIC). */
export const monoMs = () => Number(process.hrtime.bigint()) / 1e6;
