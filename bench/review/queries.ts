import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import type { RunFilter } from "@/lib/core/protocol";
import {
  countReviewRuns,
  countStatement,
  directoryOf,
  listReviewRuns,
  listStatement,
} from "@/lib/server/queries/review";
import { loadRunLog, runEventWindow, runEventWindowStatement } from "@/lib/server/queries/run-log";
import { HEAD_TYPES, LOG_PAGE } from "@/lib/core/review/run-log";
import { listShares } from "@/lib/server/queries/shares";
import { getRun, receiptsOf } from "@/lib/server/queries/runs";
import { percentile } from "../lib/stats";

export interface Timing {
  name: string;
  p50: number;
  p95: number;
  max: number;
  n: number;
  /** Rows on the first page and the view's count (runs page), or events (run page). */
  rows: number;
  count: number;
}

async function time(name: string, reps: number, work: () => Promise<{ rows: number; count: number }>): Promise<Timing> {
  let last = { rows: 0, count: 0 };
  for (let i = 0; i < 2; i++) last = await work(); // warm: plans, caches
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    last = await work();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { name, p50: percentile(ms, 50), p95: percentile(ms, 95), max: ms[ms.length - 1], n: ms.length, ...last };
}

/** The runs page's two reads for a view, side by side as the page and the API run them. */
export function runsPage(database: Database, ws: string, f: RunFilter, name: string, reps: number): Promise<Timing> {
  return time(name, reps, async () => {
    const [page, count] = await Promise.all([listReviewRuns(database.db, ws, f), countReviewRuns(database.db, ws, f)]);
    return { rows: page.runs.length, count };
  });
}

/**
 * A run page's reads (lib/server/pages/review.ts runPage): the run, receipts, names, share links,
 * then its log in windows ([REV3], lib/server/queries/run-log.ts) parsed. `rows` is the events read, `count` the run's.
 */
export function runPage(database: Database, ws: string, runId: string, events: number, reps: number): Promise<Timing> {
  const db = database.db;
  return time("run page of the long run", reps, async () => {
    const run = await getRun(db, runId);
    if (!run) throw new Error(`no run ${runId}`);
    const [receipts] = await Promise.all([receiptsOf(db, [run.id]), directoryOf(db, ws), listShares(db, ws, run.id)]);
    const log = await loadRunLog(db, run.id, receipts);
    const read =
      log.head.length +
      Object.values(log.sections).reduce((n, w) => n + w.events.length, 0) +
      Object.values(log.between).reduce((n, b) => n + b.events.length, 0);
    return { rows: read, count: events };
  });
}

/** Where "show more" reads from, as deep in the statuses as the run goes: after the 1,000th (or 500th, 200th, 100th). */
async function deepCursor(database: Database, runId: string): Promise<{ depth: number; after: number }> {
  for (const depth of [1000, 500, 200, 100]) {
    const { next } = await runEventWindow(database.db, runId, { types: ["run.status"], limit: depth });
    if (next !== null) return { depth, after: next };
  }
  throw new Error("the long run has 100 statuses or fewer");
}

/** "Show more" on the run page's statuses, pages deep ([REV3]): the window after the 1,000th status. */
export async function runPageMore(database: Database, runId: string, reps: number): Promise<Timing> {
  const { depth, after } = await deepCursor(database, runId);
  return time(`run page: show more (statuses ${depth + 1}–${depth + LOG_PAGE})`, reps, async () => {
    const w = await runEventWindow(database.db, runId, { types: ["run.status"], after, limit: LOG_PAGE });
    w.bodies.map((b) => JSON.parse(b) as unknown);
    return { rows: w.bodies.length, count: w.bodies.length };
  });
}

/** The run page's windowed reads of the long run, explained: the head events, the statuses' first page, the tenth. */
export async function explainRunLog(database: Database, runId: string): Promise<string> {
  const opts = database.kind === "postgres" ? sql.raw("(analyze, buffers)") : sql.raw("(analyze)");
  const db = database.db;
  const { depth, after } = await deepCursor(database, runId);
  const out: string[] = [];
  for (const [label, o] of [
    ["head (queued, started, annotations)", { types: HEAD_TYPES, limit: 10_000 }],
    ["statuses, first page", { types: ["run.status"], limit: LOG_PAGE }],
    [`statuses after the ${depth}th`, { types: ["run.status"], after, limit: LOG_PAGE }],
  ] as const) {
    const stmt = runEventWindowStatement(db, runId, o);
    const rows = await database.query<{ "QUERY PLAN": string }>(sql`explain ${opts} ${stmt}`);
    out.push(`-- ${label}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
  }
  return out.join("\n");
}

/** EXPLAIN (ANALYZE, BUFFERS) of a view's list and count statements, as text. */
export async function explainView(database: Database, ws: string, f: RunFilter): Promise<string> {
  const opts = database.kind === "postgres" ? sql.raw("(analyze, buffers)") : sql.raw("(analyze)");
  const out: string[] = [];
  for (const [label, stmt] of [
    ["list", listStatement(database.db, ws, f)],
    ["count", countStatement(database.db, ws, f)],
  ] as const) {
    const rows = await database.query<{ "QUERY PLAN": string }>(sql`explain ${opts} ${stmt}`);
    out.push(`-- ${label}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
  }
  return out.join("\n");
}

/** The most common value of a run_index column in the workspace (the common filter's worst case). */
export async function commonest(
  database: Database,
  ws: string,
  column: "harness_id" | "agent" | "person_id" | "space_id",
): Promise<string> {
  const rows = await database.query<{ v: string }>(
    sql`select ${sql.identifier(column)} as v from run_index where workspace_id = ${ws} and ${sql.identifier(column)} is not null group by 1 order by count(*) desc limit 1`,
  );
  if (!rows[0]) throw new Error(`no ${column} in the seeded runs`);
  return rows[0].v;
}
