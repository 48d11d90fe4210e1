import type { BaselineResult } from "../lib/baseline";
import type { FloorResult } from "../lib/http-floor";
import type { DbKind, IngestResult } from "./scenarios";
import { fmt, table } from "../lib/stats";

/** The aims, for PostgreSQL on this 2-core machine. */
export const AIMS = [
  { db: "postgres" as DbKind, scenario: "single-16", min: 2_000, text: "16 single-event clients ≥ 2,000 events/s" },
  { db: "postgres" as DbKind, scenario: "batch100-4", min: 10_000, text: "batches of 100 ≥ 10,000 events/s" },
];

export function baselineTable(rs: BaselineResult[]): string {
  return table(
    [
      "baseline (driver only)",
      "events/s",
      "p50 ms/tx",
      "p99 ms/tx",
      "CPU bench",
      "CPU machine",
      "busy before",
      "check",
    ],
    rs.map((r) => [
      `${r.case.key}: ${r.case.label}`,
      fmt.int(r.eventsPerSec),
      fmt.ms(r.lat.p50),
      fmt.ms(r.lat.p99),
      fmt.pct(r.usage.selfCpu),
      fmt.pct(r.usage.machineCpu),
      fmt.pct(r.busyBefore),
      r.check,
    ]),
  );
}

export function floorTable(rs: FloorResult[]): string {
  return table(
    ["HTTP floor (bare node:http, no DB)", "req/s", "p50 ms", "p99 ms", "CPU client", "CPU machine", "busy before"],
    rs.map((r) => [
      `${r.clients} client${r.clients > 1 ? "s" : ""}`,
      fmt.int(r.reqPerSec),
      fmt.ms(r.lat.p50),
      fmt.ms(r.lat.p99),
      fmt.pct(r.client.selfCpu),
      fmt.pct(r.client.machineCpu),
      fmt.pct(r.busyBefore),
    ]),
  );
}

const baseOf = (r: IngestResult, bs: BaselineResult[]) => bs.find((b) => b.case.key === r.scenario.baseline[r.db]);

export function ingestTable(rs: IngestResult[], bs: BaselineResult[]): string {
  return table(
    ["Chips over HTTP", "events/s", "req/s", "p50 ms", "p99 ms", "max ms", "vs baseline", "ratio", "verified"],
    rs.map((r) => {
      const b = baseOf(r, bs);
      return [
        `${r.scenario.key}: ${r.scenario.label}`,
        fmt.int(r.eventsPerSec),
        fmt.int(r.requests / r.seconds),
        fmt.ms(r.lat.p50),
        fmt.ms(r.lat.p99),
        fmt.ms(r.lat.max),
        b ? `${b.case.key} ${fmt.int(b.eventsPerSec)}/s` : "—",
        b ? fmt.ratio(r.eventsPerSec / b.eventsPerSec) : "—",
        r.verify.ok ? "ok" : "FAILED",
      ];
    }),
  );
}

/** Where the time goes: both event loops, CPU of each process, commits. */
export function costTable(rs: IngestResult[]): string {
  return table(
    [
      "scenario",
      "ev/commit",
      "server CPU (sys)",
      "server CPU ms/event",
      "server loop p99 ms",
      "client CPU",
      "client loop p99 ms",
      "machine CPU",
      "busy before",
      "server RSS MB",
      "errors",
    ],
    rs.map((r) => [
      r.scenario.key,
      r.commits !== undefined ? `${fmt.num1(r.events / Math.max(1, r.commits))}` : `≈${fmt.num1(r.verify.eventsPerTs)}`,
      `${fmt.pct(r.server.cpuPct)} (${fmt.pct(r.server.sysPct)})`,
      fmt.ms((r.server.cpuPct / 100 / r.eventsPerSec) * 1000),
      fmt.ms(r.server.loopP99),
      fmt.pct(r.client.selfCpu),
      fmt.ms(r.client.loopP99),
      fmt.pct(r.client.machineCpu),
      fmt.pct(r.busyBefore),
      fmt.int(r.server.rssMb),
      Object.entries(r.errors)
        .map(([k, v]) => `${v}× ${k}`)
        .join(", ") || "0",
    ]),
  );
}

/** Postgres backends of the scenario's database: how many were in each state, on average. */
export function waitsText(rs: IngestResult[]): string {
  const out: string[] = [];
  for (const r of rs) {
    if (!r.waits) continue;
    const parts = r.waits.states.slice(0, 5).map(([k, v]) => `${v.toFixed(2)} ${k}`);
    out.push(`  ${r.scenario.key} (${r.waits.samples} samples): ${parts.join("; ")}`);
  }
  return out.length ? `Postgres backends, average number in each state:\n${out.join("\n")}` : "";
}

export function aimsText(rs: IngestResult[]): { text: string; allMet: boolean } {
  const lines: string[] = [];
  let allMet = true;
  for (const a of AIMS) {
    const r = rs.find((x) => x.db === a.db && x.scenario.key === a.scenario);
    if (!r) {
      lines.push(`  [not run] ${a.db}: ${a.text}`);
      continue;
    }
    const met = r.eventsPerSec >= a.min && r.verify.ok;
    allMet &&= met;
    lines.push(
      `  [${met ? "MET" : "MISSED"}] ${a.db}: ${a.text} — measured ${fmt.int(r.eventsPerSec)} events/s${r.verify.ok ? "" : ", verification failed"}`,
    );
  }
  return { text: `Aims:\n${lines.join("\n")}`, allMet };
}
