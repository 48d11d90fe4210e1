import type { BaselineResult } from "../lib/baseline";
import type { FloorResult } from "../lib/http-floor";
import type { DbKind, IngestResult } from "./scenarios";
import { fmt, table } from "../lib/stats";

/** What an aim is judged on: one scenario's result, and the same run's floor and baselines. */
interface AimInputs {
  r: IngestResult;
  floor: FloorResult | undefined;
  baseline: (key: string) => BaselineResult | undefined;
}

/** One ingest aim as data: the figure it reads, and the bound it must hold. */
interface Aim {
  db: DbKind;
  scenario: string;
  text: string;
  /** The figure, and how it reads beside what it was measured against; null when a baseline is missing. */
  measure(x: AimInputs): { value: number; shown: string } | null;
  holds(value: number): boolean;
}

/** Events/s of one scenario at least `min`. */
const rateAim = (db: DbKind, scenario: string, min: number, text: string): Aim => ({
  db,
  scenario,
  text,
  measure: ({ r }) => ({ value: r.eventsPerSec, shown: `${fmt.int(r.eventsPerSec)} events/s` }),
  holds: (v) => v >= min,
});

const serverMsPerEvent = (r: IngestResult) => (r.server.cpuPct / 100 / r.eventsPerSec) * 1000;

/** The ingest aims, judged on this machine against baselines of the same run. */
export const AIMS: Aim[] = [
  rateAim("postgres", "single-16", 2_000, "16 single-event clients ≥ 2,000 events/s"),
  {
    db: "postgres",
    scenario: "single-16",
    text: "16 single-event clients ≥ 0.3× the bare node:http floor",
    measure: ({ r, floor }) =>
      floor
        ? {
            value: r.eventsPerSec / floor.reqPerSec,
            // The floor is as fast as its own client can go: its CPU says whether it was the limit.
            shown: `${fmt.ratio(r.eventsPerSec / floor.reqPerSec)} (floor ${fmt.int(floor.reqPerSec)} req/s, its client at ${fmt.pct(floor.client.selfCpu)} CPU)`,
          }
        : null,
    holds: (v) => v >= 0.3,
  },
  {
    db: "postgres",
    scenario: "single-16",
    text: "server CPU ≤ 0.5 ms an event, single events",
    measure: ({ r }) => ({ value: serverMsPerEvent(r), shown: `${fmt.ms(serverMsPerEvent(r))} ms` }),
    holds: (v) => v <= 0.5,
  },
  rateAim("postgres", "batch100-4", 10_000, "batches of 100 ≥ 10,000 events/s"),
  {
    db: "postgres",
    scenario: "batch100-4",
    text: "batches of 100 ≥ 0.8× the driver's 50 events a transaction, 4 clients",
    measure: ({ r, baseline }) => {
      const b = baseline("tx50-c4");
      return b
        ? {
            value: r.eventsPerSec / b.eventsPerSec,
            shown: `${fmt.ratio(r.eventsPerSec / b.eventsPerSec)} (tx50-c4 ${fmt.int(b.eventsPerSec)}/s)`,
          }
        : null;
    },
    holds: (v) => v >= 0.8,
  },
  rateAim("pglite", "single-16", 1_000, "16 single-event clients ≥ 1,000 events/s"),
  {
    db: "pglite",
    scenario: "batch100-4",
    // Node's delay histogram counts its 10 ms sampling interval in: 20 ms is a stall of ~10 ms.
    text: "server event-loop delay p99 ≤ 20 ms under batches",
    measure: ({ r }) => ({ value: r.server.loopP99, shown: `${fmt.ms(r.server.loopP99)} ms` }),
    holds: (v) => v <= 20,
  },
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

/** Every aim with its verdict; an aim whose scenario did not run says so. */
export function aimsText(rs: IngestResult[], floors: FloorResult[], baselines: BaselineResult[]): string {
  const lines = AIMS.map((a) => {
    const r = rs.find((x) => x.db === a.db && x.scenario.key === a.scenario);
    const m =
      r &&
      a.measure({
        r,
        floor: floors.find((f) => f.clients === r.scenario.clients),
        baseline: (key) => baselines.find((b) => b.db === a.db && b.case.key === key),
      });
    if (!r || !m) return `  [not run] ${a.db}: ${a.text}`;
    const met = a.holds(m.value) && r.verify.ok;
    return `  [${met ? "MET" : "MISSED"}] ${a.db}: ${a.text} — measured ${m.shown}${r.verify.ok ? "" : ", verification failed"}`;
  });
  return `Aims:\n${lines.join("\n")}`;
}
