import type { FanoutResult } from "./fanout";

/** Offered rates a step-up run tries, at 50 clients, until p99 passes the aim. */
export const STEP_RATES = [250, 500, 1000, 1500, 2000, 3000];
export const STEP_CLIENTS = 50;
const P99_AIM_MS = 50;

/** A step holds when p99 ≤ 50 ms, every post was stored without falling behind, and nothing was lost, reordered or doubled. */
const held = (r: FanoutResult) =>
  r.latency.pct(99) <= P99_AIM_MS &&
  r.missing === 0 &&
  r.outOfOrder === 0 &&
  r.duplicates === 0 &&
  r.post.failed === 0 &&
  r.post.lagP99 <= P99_AIM_MS;

/** The step-up table: each offered rate, its latency, whether it held; the highest held rate last. */
export function printStepUp(db: string, steps: FanoutResult[]) {
  console.log(`\n### ${db}: fan-out step-up, ${STEP_CLIENTS} clients (aim: p99 ≤ ${P99_AIM_MS} ms at ≥ 1,500/s)\n`);
  console.log(
    "| offered /s | poster lag p99 ms | p50 ms | p99 ms | max ms | missing | reordered | duplicates | failed / retried POSTs | held |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const r of steps) {
    const l = r.latency;
    console.log(
      `| ${r.rate} | ${r.post.lagP99.toFixed(1)} | ${l.pct(50).toFixed(1)} | ${l.pct(99).toFixed(1)} | ${l.max.toFixed(1)} | ${r.missing} | ${r.outOfOrder} | ${r.duplicates} | ${r.post.failed} / ${r.post.retried} | ${held(r) ? "yes" : "**no**"} |`,
    );
  }
  const best = steps.filter(held).at(-1);
  console.log(`\nhighest offered rate held at ${STEP_CLIENTS} clients: ${best ? `${best.rate}/s` : "none"}`);
}
