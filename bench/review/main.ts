/**
 * `npm run bench -- --only review [--db pglite|postgres|both] [--runs N] [--events M]
 * [--budget-minutes B] [--reps R]`: the review pages on a big seeded history
 * (docs/REVIEW.md). On PostgreSQL it seeds N runs and M events (default 100,000 and
 * 2,000,000; on PGlite a tenth) through the one ingest writer, as `npm run seed` does,
 * and prints the seeding rate — stopping early, and saying at what size, when the time
 * budget (default 25 minutes of writing) runs out. Then p50/p95 of the runs page (its list
 * and count, side by side as the page runs them) for each common filter and for full-text
 * search, and of the run page of a 10,000-event run (its log in windows, [REV3]) and of its
 * "show more", with EXPLAIN (ANALYZE) of every view whose p95 misses the aim (300 ms), of
 * sort=duration and of the run page's windows. Never run in CI.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { openDatabase } from "@/db/client";
import type { RunFilter } from "@/lib/core/protocol";
import { loadConfig } from "@/lib/server/env";
import { bootstrap } from "@/lib/server/bootstrap";
import { createServices } from "@/lib/server/services";
import { createWorkspaceBundle } from "@/lib/server/workspaces";
import { parseDbFlag, startPg, type DbKind } from "../lib/pg";
import { fmt, table } from "../lib/stats";
import { commonest, explainRunLog, explainView, runPage, runPageMore, runsPage, type Timing } from "./queries";
import { seedBig, seedLongRun } from "./seed";

const AIM_MS = 300;
const STRETCH_MS = 100;

const { values } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    runs: { type: "string", default: "100000" },
    events: { type: "string", default: "2000000" },
    "long-run": { type: "string", default: "10000" },
    "budget-minutes": { type: "string", default: "25" },
    reps: { type: "string", default: "30" },
  },
});
const num = (k: "runs" | "events" | "long-run" | "budget-minutes" | "reps") => Number(values[k]);
const log = (s: string) => console.error(s);

async function bench(kind: DbKind) {
  const scale = kind === "postgres" ? 1 : 0.1;
  const runs = Math.round(num("runs") * scale);
  const events = Math.round(num("events") * scale);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-bench-review-"));
  const pg = kind === "postgres" ? await startPg() : null;
  const databaseUrl = pg ? await pg.createDb("review") : "";
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, CHIPS_DATA_DIR: tmp, CHIPS_WEB: "0" });
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.pgPoolSize,
  });
  try {
    await bootstrap(database.db, config.dataDir);
    const svc = createServices(config, database);
    const ws = (await createWorkspaceBundle(database.db, { workspace: "Review bench" })).workspace_id;
    console.log(
      `\n## Review on ${kind === "postgres" ? `PostgreSQL ${pg!.version}` : "PGlite"}: asked for ${fmt.int(runs)} runs, ${fmt.int(events)} events (+ one run of ~${fmt.int(num("long-run") * scale)} events)`,
    );
    const long = await seedLongRun(svc, ws, Math.round(num("long-run") * scale));
    log(`  long run ${long.runId}: ${long.events} events in ${(long.ms / 1000).toFixed(1)} s`);
    const s = await seedBig(svc, ws, {
      runs,
      events,
      chunkRuns: Math.max(100, Math.round(runs / 20)),
      budgetMs: num("budget-minutes") * 60_000,
      log,
    });
    svc.review.close();
    const rate = s.events / (s.writeMs / 1000);
    console.log(
      `seeded through the ingest writer: ${fmt.int(s.runs)} runs, ${fmt.int(s.events)} events in ${(s.writeMs / 1000).toFixed(0)} s = **${fmt.int(rate)} events/s** (${fmt.int(s.runs / (s.writeMs / 1000))} runs/s); review index settled ${(s.indexMs / 1000).toFixed(1)} s later` +
        (s.cut
          ? `; STOPPED by the ${values["budget-minutes"]}-minute budget short of ${fmt.int(runs)} runs / ${fmt.int(events)} events`
          : "") +
        `; the long run: ${fmt.int(long.events)} events`,
    );
    if (kind === "postgres") await database.query(sql`analyze`); // what autovacuum would have done by now
    const [{ n: indexed }] = await database.query<{ n: number }>(
      sql`select count(*)::int as n from run_index where workspace_id = ${ws}`,
    );
    const [{ n: stored }] = await database.query<{ n: number }>(
      sql`select count(*)::int as n from events where workspace_id = ${ws}`,
    );
    console.log(`in the database: ${fmt.int(stored)} events, ${fmt.int(indexed)} runs in run_index`);

    const mid = new Date((Date.parse(s.firstDay) + Date.parse(s.lastDay)) / 2).toISOString().slice(0, 10);
    const week = new Date(Date.parse(mid) + 6 * 86_400_000).toISOString().slice(0, 10);
    const [harness, agent, person, space] = await Promise.all([
      commonest(database, ws, "harness_id"),
      commonest(database, ws, "agent"),
      commonest(database, ws, "person_id"),
      commonest(database, ws, "space_id"),
    ]);
    const views: [string, RunFilter][] = [
      ["no filter (newest first)", {}],
      ["status=failed", { status: "failed" }],
      ["status=running", { status: "running" }],
      [`harness (commonest)`, { harness }],
      [`agent=${agent.length > 12 ? "an agent id" : agent}`, { agent }],
      ["person (commonest)", { person }],
      ["room (commonest)", { space }],
      [`date range ${mid}..${week}`, { from: mid, to: week }],
      ["harness + status=failed + date range", { harness, status: "failed", from: mid, to: week }],
      ["review=unreviewed", { review: "unreviewed" }],
      ["sort=duration", { sort: "duration" }],
      ["search q=kafka", { q: "kafka" }],
      ["search q=kaf (prefix)", { q: "kaf" }],
      ["search q=checkout (common word)", { q: "checkout" }],
      ["search q=請求書 (Japanese)", { q: "請求書" }],
      ["search q=счет (Russian, folded)", { q: "счет" }],
      ["search q=kafka + status=failed", { q: "kafka", status: "failed" }],
      ["search q=xylophone (no hit)", { q: "xylophone" }],
    ];
    const reps = num("reps");
    const results: { t: Timing; f: RunFilter | null }[] = [];
    for (const [name, f] of views) {
      log(`  ${name}`);
      results.push({ t: await runsPage(database, ws, f, name, reps), f });
    }
    results.push({ t: await runPage(database, ws, long.runId, long.events, reps), f: null });
    results.push({ t: await runPageMore(database, long.runId, reps), f: null });
    const verdict = (t: Timing) => (t.p95 <= STRETCH_MS ? "met (stretch too)" : t.p95 <= AIM_MS ? "met" : "**MISSED**");
    console.log(
      `\n${table(
        ["runs page view / run page", "p50 ms", "p95 ms", "max ms", "rows", "count", "aim p95 ≤ 300 ms"],
        results.map(({ t }) => [
          t.name,
          fmt.ms(t.p50),
          fmt.ms(t.p95),
          fmt.ms(t.max),
          String(t.rows),
          t.count > 10_000 ? "10,000+" : fmt.int(t.count),
          verdict(t),
        ]),
      )}`,
    );
    console.log(
      `(${reps} reps each after 2 warm-ups, one at a time; the runs page runs its list and count side by side, as the page and the API do; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})`,
    );
    const missed = results.filter(({ t }) => t.p95 > AIM_MS);
    for (const { t, f } of missed)
      if (f)
        console.log(
          `\n### EXPLAIN — ${t.name} (p95 ${fmt.ms(t.p95)} ms)\n\`\`\`\n${await explainView(database, ws, f)}\n\`\`\``,
        );
    if (!missed.length) console.log("\nEvery view met the aim.");
    // Always shown: the plans that decide the two views that missed before (sort=duration's index, the run page's windows).
    console.log(
      `\n### EXPLAIN — search with no hit\n\`\`\`\n${await explainView(database, ws, { q: "xylophone" })}\n\`\`\``,
    );
    console.log(
      `\n### EXPLAIN — sort=duration\n\`\`\`\n${await explainView(database, ws, { sort: "duration" })}\n\`\`\``,
    );
    console.log(
      `\n### EXPLAIN — the run page's log windows\n\`\`\`\n${await explainRunLog(database, long.runId)}\n\`\`\``,
    );
  } finally {
    await database.close();
    await pg?.stop();
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

for (const kind of parseDbFlag(values.db)) await bench(kind);
