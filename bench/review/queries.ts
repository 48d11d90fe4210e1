import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import type { RunFilter } from "@/lib/protocol";
import {
  countReviewRuns,
  countStatement,
  directoryOf,
  listReviewRuns,
  listStatement,
  runEventBodies,
} from "@/lib/queries/review";
import { listShares } from "@/lib/queries/shares";
import { getRun, receiptsOf } from "@/lib/queries/runs";
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

/** A run page's reads (lib/pages/review.ts runPage): the run, its whole log parsed, receipts, names, share links. */
export function runPage(database: Database, ws: string, runId: string, reps: number): Promise<Timing> {
  const db = database.db;
  return time("run page of the long run", reps, async () => {
    const run = await getRun(db, runId);
    if (!run) throw new Error(`no run ${runId}`);
    const [bodies] = await Promise.all([
      runEventBodies(db, run.id),
      receiptsOf(db, [run.id]),
      directoryOf(db, ws),
      listShares(db, ws, run.id),
    ]);
    const evs = bodies.map((b) => JSON.parse(b) as unknown);
    return { rows: evs.length, count: evs.length };
  });
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

/** The run page's log read, explained. */
export async function explainRunLog(database: Database, runId: string): Promise<string> {
  const opts = database.kind === "postgres" ? sql.raw("(analyze, buffers)") : sql.raw("(analyze)");
  const rows = await database.query<{ "QUERY PLAN": string }>(
    sql`explain ${opts} select body from events where run_id = ${runId} order by seq`,
  );
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
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
