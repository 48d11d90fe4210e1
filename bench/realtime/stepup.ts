import type { FanoutResult } from "./fanout";
import { pct, type Aim } from "../lib/table";

/** Offered rates a step-up run tries, at 50 clients, until p99 passes the aim. */
export const STEP_RATES = [250, 500, 1000, 1500, 2000, 3000];
export const STEP_CLIENTS = 50;
const P99_AIM_MS = 50;

/**
 * A step holds when p99 ≤ 50 ms, every post was stored without the poster falling behind, and
 * nothing was lost or doubled — nor, on Chips, reordered. The bare baseline promises no order
 * (it emits each insert as its POST finishes, and concurrent inserts finish out of seq order),
 * so its reorders are printed, not held against it.
 */
export const held = (r: FanoutResult, ordered = true) =>
  r.latency.pct(99) <= P99_AIM_MS &&
  r.missing === 0 &&
  (!ordered || r.outOfOrder === 0) &&
  r.duplicates === 0 &&
  r.post.failed === 0 &&
  r.post.lagP99 <= P99_AIM_MS;

const bestRate = (steps: FanoutResult[], ordered: boolean) => steps.filter((r) => held(r, ordered)).at(-1)?.rate ?? 0;

/** Where the machine's time went in a step, % of one core (2 cores = 200 %): who saturates it. */
const cpuCell = (r: FanoutResult) => {
  const pg = r.otherProcs.filter((p) => p.comm === "postgres").reduce((a, p) => a + p.pct, 0);
  return `${pct(r.cpu.server)} / ${pct(pg)} / ${pct(r.cpu.clients)} / ${pct(r.cpu.poster)} / ${pct(r.cpu.machine)}`;
};

/**
 * The step-up table for Chips and, in the same run, the bare baseline server storing nothing
 * (`BASELINE_DB=memory`: HTTP in, a plain `io.emit` out, the same poster and clients): its
 * highest rate held is what this machine allows the bench at all, so Chips' rate is reported
 * beside it as a ratio. Returns the aim's row: Chips holds ≥ 1,500/s.
 */
export function printStepUp(db: string, chips: FanoutResult[], base: FanoutResult[]): Aim {
  console.log(`\n### ${db}: fan-out step-up, ${STEP_CLIENTS} clients (aim: p99 ≤ ${P99_AIM_MS} ms at ≥ 1,500/s)\n`);
  console.log(
    "| server | offered /s | poster lag p99 ms | POST answered p50 / p99 ms | p50 ms | p99 ms | max ms | missing | reordered | duplicates | failed / retried POSTs | srv ms/event | CPU srv / pg / clients / poster / machine | held |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const [who, steps] of [
    ["Chips", chips],
    ["bare, no database", base],
  ] as const)
    for (const r of steps) {
      const l = r.latency;
      console.log(
        `| ${who} | ${r.rate} | ${r.post.lagP99.toFixed(1)} | ${r.post.post.pct(50).toFixed(1)} / ${r.post.post.pct(99).toFixed(1)} | ${l.pct(50).toFixed(1)} | ${l.pct(99).toFixed(1)} | ${l.max.toFixed(1)} | ${r.missing} | ${r.outOfOrder} | ${r.duplicates} | ${r.post.failed} / ${r.post.retried} | ${r.serverMsPerEvent.toFixed(2)} | ${cpuCell(r)} | ${held(r, who === "Chips") ? "yes" : "**no**"} |`,
      );
    }
  const c = bestRate(chips, true);
  const b = bestRate(base, false);
  const ratio = b > 0 ? `: Chips ${(c / b).toFixed(2)}× the ceiling` : "";
  console.log(
    `\nhighest offered rate held at ${STEP_CLIENTS} clients: Chips ${c ? `${c}/s` : "none"}, bare baseline without a database ${b ? `${b}/s` : "none"} (same run)${ratio}`,
  );
  return {
    what: `step-up: highest rate held at ${STEP_CLIENTS} clients (p99 ≤ ${P99_AIM_MS} ms; none lost, reordered or doubled)`,
    aim: "≥ 1,500/s",
    got: `${c ? `${c}/s` : "none"} (ceiling ${b ? `${b}/s` : "none"})`,
    met: c >= 1500,
  };
}
