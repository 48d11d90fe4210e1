/**
 * `npm run bench [-- --db pglite|postgres|both] [--seconds N] [--only ingest]
 *                [--scenario KEY[,KEY]] [--profile DIR] [--json FILE] [--quiet-wait SECONDS]`
 *
 * --quiet-wait: before each measurement wait (default at most 60 s) for the machine to be
 * under 30% of one core busy; the "busy before" column shows what other work remained.
 *
 * Ingest throughput and latency of the real server (a child process, loopback HTTP with
 * keep-alive, closed-loop clients) on PGlite and on a throwaway PostgreSQL cluster, beside
 * driver-only baselines measured in the same run. Never run in CI.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findPgBin, startCluster } from "../../scripts/pg-cluster.mjs";
import { BASELINES, pgBaseline, pgliteBaseline, type BaselineResult } from "../lib/baseline";
import { httpFloor, type FloorResult } from "../lib/http-floor";
import { INGEST_SCENARIOS, runIngestScenario, type DbKind, type IngestResult } from "./scenarios";
import { renderStatements } from "../lib/pg-statements";
import { pgAdmin, type PgAdmin } from "../lib/pg-watch";
import { renderProfile, summarizeProfile } from "./profile";
import { aimsText, baselineTable, costTable, floorTable, ingestTable, waitsText } from "./report";

const SUITES = ["ingest"] as const;

/** A bad command line: said in one line, without a stack. */
class UsageError extends Error {}

function parseArgs(argv: string[]) {
  const o = {
    db: "both",
    seconds: 5,
    only: "ingest",
    scenarios: null as string[] | null,
    profileDir: "",
    json: "",
    quietWait: 60,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const val = () => inline ?? argv[++i] ?? "";
    if (flag === "--db") o.db = val();
    else if (flag === "--seconds") o.seconds = Number(val());
    else if (flag === "--only") o.only = val();
    else if (flag === "--scenario") o.scenarios = val().split(",");
    else if (flag === "--profile") o.profileDir = path.resolve(val() || "bench-profiles");
    else if (flag === "--quiet-wait") o.quietWait = Number(val());
    else if (flag === "--json") o.json = path.resolve(val());
    else if (flag === "--help" || flag === "-h") {
      console.log(fs.readFileSync(import.meta.filename, "utf8").split("*/")[0]);
      process.exit(0);
    } else throw new UsageError(`unknown flag ${argv[i]} (try --help)`);
  }
  if (!["pglite", "postgres", "both"].includes(o.db)) throw new UsageError("--db is pglite, postgres or both");
  if (!(o.seconds > 0 && o.seconds <= 600)) throw new UsageError("--seconds is a number of seconds, 0 < N ≤ 600");
  if (!(o.quietWait >= 0 && o.quietWait <= 3600)) throw new UsageError("--quiet-wait is 0..3600 seconds");
  if (!(SUITES as readonly string[]).includes(o.only)) throw new UsageError(`--only is one of ${SUITES.join(", ")}`);
  return o;
}

const log = (line: string) => process.stderr.write(line + "\n");

function machine(pgVersion: string | null, pgSettings: Record<string, string> | null): string {
  const pkg = (p: string) =>
    JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../..", "node_modules", p, "package.json"), "utf8"))
      .version;
  let nproc = String(os.cpus().length);
  try {
    nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  } catch {
    /* os.cpus() it is */
  }
  const lines = [
    `Machine: ${nproc} cores (${os.cpus()[0]?.model ?? "?"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
    `Node ${process.version}; PGlite ${pkg("@electric-sql/pglite")}; postgres-js ${pkg("postgres")}; drizzle-orm ${pkg("drizzle-orm")}`,
  ];
  if (pgVersion)
    lines.push(
      `PostgreSQL ${pgVersion} (${Object.entries(pgSettings ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")})`,
    );
  return lines.join("\n");
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let dbs: DbKind[] = o.db === "both" ? ["pglite", "postgres"] : [o.db as DbKind];
  if (dbs.includes("postgres") && !findPgBin()) {
    if (o.db === "postgres")
      throw new UsageError("PostgreSQL binaries not found (looked in $CHIPS_PG_BIN and /usr/lib/postgresql/*/bin)");
    log("[bench] PostgreSQL binaries not found: PGlite only, and the aims (PostgreSQL) are not run");
    dbs = ["pglite"];
  }
  const scenarios = INGEST_SCENARIOS.filter((s) => !o.scenarios || o.scenarios.includes(s.key));
  if (scenarios.length === 0)
    throw new UsageError(`no such scenario; known: ${INGEST_SCENARIOS.map((s) => s.key).join(", ")}`);
  if (o.profileDir) fs.mkdirSync(o.profileDir, { recursive: true });

  let cluster: { url: string; dir: string; stop(): Promise<void> } | null = null;
  let pg: PgAdmin | null = null;
  const results: { floor: FloorResult[]; baselines: BaselineResult[]; ingest: IngestResult[] } = {
    floor: [],
    baselines: [],
    ingest: [],
  };
  let failed = false;
  try {
    if (dbs.includes("postgres")) {
      cluster = await startCluster({ quiet: true });
      pg = pgAdmin(cluster.url);
    }
    console.log(machine(pg ? await pg.version() : null, pg ? await pg.settings() : null));
    console.log(
      `Each run: ${o.seconds} s measured after a warm-up; server in a child process; loopback HTTP, keep-alive.\n`,
    );

    log("[bench] HTTP floor");
    for (const clients of [...new Set(scenarios.filter((s) => s.batch === 1).map((s) => s.clients))]) {
      results.floor.push(await httpFloor(clients, o.seconds, o.quietWait));
    }
    if (results.floor.length) console.log(floorTable(results.floor) + "\n");

    for (const db of dbs) {
      log(`[bench] ${db}: driver-only baselines`);
      const bs: BaselineResult[] = [];
      for (const c of BASELINES[db]) {
        bs.push(
          db === "postgres"
            ? await pgBaseline(pg!, c, o.seconds, o.quietWait)
            : await pgliteBaseline(c, o.seconds, o.quietWait),
        );
        log(`  ${c.key}: ${Math.round(bs[bs.length - 1].eventsPerSec)} events/s`);
      }
      log(`[bench] ${db}: Chips ingest`);
      const rs: IngestResult[] = [];
      for (const sc of scenarios) {
        const r = await runIngestScenario(db, sc, {
          seconds: o.seconds,
          pg: db === "postgres" ? pg! : undefined,
          profileDir: o.profileDir || undefined,
          clusterDir: cluster?.dir,
          quietWait: o.quietWait,
          log,
        });
        log(
          `  ${sc.key}: ${Math.round(r.eventsPerSec)} events/s, p50 ${r.lat.p50.toFixed(2)} ms, p99 ${r.lat.p99.toFixed(2)} ms`,
        );
        rs.push(r);
        failed ||= !r.verify.ok;
      }
      results.baselines.push(...bs);
      results.ingest.push(...rs);

      console.log(`## ${db === "postgres" ? "PostgreSQL" : "PGlite"}\n`);
      console.log(baselineTable(bs) + "\n");
      console.log(ingestTable(rs, bs) + "\n");
      console.log(costTable(rs) + "\n");
      const w = waitsText(rs);
      if (w) console.log(w + "\n");
      for (const r of rs)
        console.log(
          `verify ${r.scenario.key}: ${r.verify.ok ? "ok" : "FAILED"} — ${r.verify.detail}; stored body ≈ ${Math.round(r.verify.bodyBytes)} bytes`,
        );
      console.log("");
      if (o.profileDir) {
        for (const r of rs) {
          if (r.server.profileFile)
            console.log(renderProfile(`${db} ${r.scenario.key}`, summarizeProfile(r.server.profileFile)) + "\n");
          if (r.statements) console.log(renderStatements(`${db} ${r.scenario.key}`, r.commits, r.statements) + "\n");
        }
      }
    }
    console.log(aimsText(results.ingest, results.floor, results.baselines));
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(results, null, 2));
  } finally {
    await pg?.close();
    await cluster?.stop();
  }
  if (failed) {
    console.log("\nVerification FAILED for at least one scenario (see above).");
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(
    e instanceof UsageError ? e.message : `bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
  );
  process.exit(1);
});
