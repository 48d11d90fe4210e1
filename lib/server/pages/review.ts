import {
  parseRunFilter,
  RollupQuery,
  viewQuery,
  type Run,
  type RunFilter,
  type RunListPage,
  type StoredEvent,
} from "@/lib/core/protocol";
import {
  agentsOf,
  BadCursor,
  countReviewRuns,
  directoryOf,
  listReviewRuns,
  savedViewsOf,
  spaceEventsBetween,
} from "@/lib/server/queries/review";
import { firstRunSeq, loadRunLog } from "@/lib/server/queries/run-log";
import { listShares } from "@/lib/server/queries/shares";
import { rollup } from "@/lib/server/queries/rollups";
import { requirePerson, services } from "@/lib/server/page-context";
import { getRun, receiptsOf } from "@/lib/server/queries/runs";
import { may } from "@/lib/server/roles";
import { asksOfRuns } from "@/lib/server/queries/asks";
import { askRollups } from "@/lib/server/review/ask-stats";
import { askTally } from "@/lib/core/review/asks";
import type {
  CompareData,
  ReplayData,
  ReviewNames,
  RollupsData,
  RunPageData,
  RunsPageData,
} from "@/lib/core/views/review-pages";

const names = (ws: string): Promise<ReviewNames> => directoryOf(services().db, ws);

/** The runs page: a view of the workspace's runs (for its people only). */
export async function runsPage(
  ws: string,
  params: Record<string, string | string[] | undefined>,
): Promise<RunsPageData> {
  const person = await requirePerson(ws);
  const svc = services();
  await svc.review.settle(ws);
  const parsed = parseRunFilter(params);
  const filter: RunFilter = parsed.success ? parsed.data : {};
  let problem = parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  let page: RunListPage = { runs: [], next_cursor: null };
  let count = 0;
  try {
    [page, count] = await Promise.all([listReviewRuns(svc.db, ws, filter), countReviewRuns(svc.db, ws, filter)]);
  } catch (e) {
    if (!(e instanceof BadCursor)) throw e;
    problem = "That page link is not valid any more; here is the first page.";
    [page, count] = await Promise.all([
      listReviewRuns(svc.db, ws, { ...filter, cursor: undefined }),
      countReviewRuns(svc.db, ws, filter),
    ]);
  }
  const [n, agents, views] = await Promise.all([
    names(ws),
    agentsOf(svc.db, ws),
    savedViewsOf(svc.db, person.subjectId),
  ]);
  return { names: n, agents, views, filter, problem, page, count, query: viewQuery(filter) };
}

/** A run of the workspace with its log's first windows, receipts and share links, or null. */
export async function runPage(ws: string, runId: string): Promise<RunPageData | null> {
  const person = await requirePerson(ws);
  const db = services().db;
  const run = await getRun(db, runId);
  if (!run || run.workspace_id !== ws) return null;
  const [receipts, n, shares] = await Promise.all([receiptsOf(db, [run.id]), names(ws), listShares(db, ws, run.id)]);
  return {
    run,
    log: await loadRunLog(db, run.id, receipts),
    receipts,
    names: n,
    now: new Date().toISOString(),
    canAct: may(person, "write"),
    shares,
    me: person.subjectId,
    isOwner: may(person, "manage"),
  };
}

/** What a replay of a run folds: the room's log over the run's span. */
export async function replayPage(ws: string, runId: string): Promise<ReplayData | null> {
  await requirePerson(ws);
  const svc = services();
  const run = await getRun(svc.db, runId);
  if (!run || run.workspace_id !== ws) return null;
  const first = (await firstRunSeq(svc.db, run.id)) ?? run.last_seq;
  const bodies = await spaceEventsBetween(svc.db, ws, run.space_id, first, run.last_seq);
  return {
    run,
    events: bodies.map((b) => JSON.parse(b) as StoredEvent),
    names: await names(ws),
    statusTtlSeconds: svc.config.statusTtlSeconds,
  };
}

/** Runs of the workspace to compare (`?run=A&run=B…` or `?run=A,B`, at most 6). */
export async function comparePage(ws: string, asked: string | string[] | undefined): Promise<CompareData> {
  await requirePerson(ws);
  const ids = (Array.isArray(asked) ? asked : asked ? asked.split(",") : []).map((x) => x.trim()).filter(Boolean);
  const db = services().db;
  const runs: Run[] = [];
  const missing: string[] = [];
  for (const id of ids.slice(0, 6)) {
    const run = /^run_[0-9A-Za-z]{26}$/.test(id) ? await getRun(db, "run_" + id.slice(4).toUpperCase()) : null;
    if (run && run.workspace_id === ws) runs.push(run);
    else missing.push(id);
  }
  const asks = await asksOfRuns(
    db,
    runs.map((r) => r.id),
  );
  return {
    runs,
    names: await names(ws),
    missing,
    asks: Object.fromEntries(runs.map((r) => [r.id, askTally(asks.filter((a) => a.run_id === r.id))])),
  };
}

/** The rollups page ([ROL1]): one grouping of the workspace's runs (for its people only). */
export async function rollupsPage(
  ws: string,
  params: Record<string, string | string[] | undefined>,
): Promise<RollupsData> {
  await requirePerson(ws);
  const svc = services();
  await svc.review.settle(ws);
  const given = Object.fromEntries(
    Object.entries(params).flatMap(([k, v]) => (typeof v === "string" && v.trim() ? [[k, v.trim()]] : [])),
  );
  const parsed = RollupQuery.safeParse(given);
  const q = parsed.success ? parsed.data : { by: "day" as const };
  const problem = parsed.success
    ? null
    : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  const range = { from: "from" in q ? q.from : undefined, to: "to" in q ? q.to : undefined };
  const [rows, n, asks] = await Promise.all([rollup(svc.db, ws, q), names(ws), askRollups(svc.db, ws, range)]);
  return {
    by: q.by,
    ...range,
    rows,
    names: n,
    problem,
    asks,
  };
}
