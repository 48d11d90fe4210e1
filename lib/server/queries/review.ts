import { and, asc, desc, eq, gte, isNotNull, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events, harnesses, persons, runIndex, savedViews, spaces } from "@/db/schema";
import type { RunFilter, RunListItem, RunListPage, SavedView } from "@/lib/core/protocol";
import { searchQuery } from "@/lib/core/review/search-text";

/**
 * Named reads of the review index (docs/REVIEW.md): the runs page's filtered, sorted,
 * cursor-paged list, its count, and people's saved views. The index is brought up to the
 * log's head by the caller (ReviewIndexer.settle) before these run.
 */

const PAGE_SIZE = 50;
/** Counts stop here: "10,000+ runs" costs as little on a big history as on a small one. */
export const COUNT_CAP = 10_000;

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

/** The sort key of a view: its column expression (nulls as -1, so a cursor can pass them). */
function sortKey(f: RunFilter): { key: SQL; kind: "time" | "number" } {
  switch (f.sort ?? "started") {
    case "started":
      return { key: sql`${runIndex.createdAt}`, kind: "time" };
    case "duration":
      return { key: sql`coalesce(${runIndex.durationMs}, -1)`, kind: "number" };
    case "cost":
      return { key: sql`coalesce(${runIndex.costUsd}, -1)`, kind: "number" };
  }
}

const dayStart = (d: string) => `${d}T00:00:00.000Z`;
const nextDay = (d: string) => new Date(Date.parse(dayStart(d)) + 86_400_000).toISOString();

/** The view's filters as conditions on `run_index` (the workspace's rows only). */
function conditions(ws: string, f: RunFilter): SQL[] {
  const c: SQL[] = [eq(runIndex.workspaceId, ws)];
  const tsq = f.q ? searchQuery(f.q) : null;
  if (tsq) c.push(sql`${runIndex.doc} @@ ${tsq}::tsquery`);
  if (f.status)
    c.push(
      ["succeeded", "failed", "cancelled"].includes(f.status)
        ? eq(runIndex.outcome, f.status as "failed")
        : eq(runIndex.state, f.status as "running"),
    );
  if (f.space) c.push(eq(runIndex.spaceId, f.space));
  if (f.harness) c.push(eq(runIndex.harnessId, f.harness));
  if (f.agent) c.push(eq(runIndex.agent, f.agent));
  if (f.person) c.push(eq(runIndex.personId, f.person));
  if (f.from) c.push(gte(runIndex.createdAt, dayStart(f.from)));
  if (f.to) c.push(lt(runIndex.createdAt, nextDay(f.to)));
  if (f.min_duration !== undefined) c.push(gte(runIndex.durationMs, f.min_duration * 1000));
  if (f.max_duration !== undefined) c.push(lte(runIndex.durationMs, f.max_duration * 1000));
  if (f.change_set) c.push(f.change_set === "yes" ? isNotNull(runIndex.files) : isNull(runIndex.files));
  if (f.failed_checks)
    c.push(
      f.failed_checks === "yes" ? sql`${runIndex.failedChecks} > 0` : sql`coalesce(${runIndex.failedChecks}, 0) = 0`,
    );
  switch (f.review) {
    case "annotated":
      c.push(sql`${runIndex.annotations} > 0`);
      break;
    case "unreviewed":
      c.push(and(eq(runIndex.state, "finished"), isNull(runIndex.verdict))!);
      break;
    case undefined:
      break;
    default:
      c.push(eq(runIndex.verdict, f.review));
  }
  return c;
}

/** The opaque cursor after a row: its sort value and id. */
const encodeCursor = (value: string | number, id: string) =>
  Buffer.from(JSON.stringify([value, id])).toString("base64url");
function decodeCursor(cursor: string): [string | number, string] | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      (typeof v[0] === "string" || typeof v[0] === "number") &&
      typeof v[1] === "string"
    )
      return [v[0], v[1]];
  } catch {
    // not one of ours: answered as a bad parameter by the caller
  }
  return null;
}

export class BadCursor extends Error {}

/**
 * The list statement of a view, not yet run: one more row than a page (is there a next?).
 * listReviewRuns runs it; the review bench (bench/review/) times it and EXPLAINs it.
 */
export function listStatement(db: Db, ws: string, f: RunFilter) {
  const limit = f.limit ?? PAGE_SIZE;
  const { key, kind } = sortKey(f);
  const up = f.dir === "asc";
  const where = conditions(ws, f);
  if (f.cursor) {
    const at = decodeCursor(f.cursor);
    if (!at) throw new BadCursor("not a cursor of this list");
    const value = kind === "time" ? sql`${String(at[0])}::timestamptz` : sql`${Number(at[0])}`;
    where.push(
      up
        ? sql`(${key}, ${runIndex.runId}) > (${value}, ${at[1]})`
        : sql`(${key}, ${runIndex.runId}) < (${value}, ${at[1]})`,
    );
  }
  const order = up ? [asc(key), asc(runIndex.runId)] : [desc(key), desc(runIndex.runId)];
  return db
    .select()
    .from(runIndex)
    .where(and(...where))
    .orderBy(...order)
    .limit(limit + 1);
}

/** A page of the workspace's runs for a view, and the cursor of the next page (null on the last). */
export async function listReviewRuns(db: Db, ws: string, f: RunFilter): Promise<RunListPage> {
  const limit = f.limit ?? PAGE_SIZE;
  const { kind } = sortKey(f);
  const rows = await listStatement(db, ws, f);
  const page = rows.slice(0, limit).map(itemOf);
  const last = page[page.length - 1];
  const lastValue = !last
    ? null
    : kind === "time"
      ? last.created_at
      : ((f.sort === "cost" ? last.cost_usd : last.duration_ms) ?? -1);
  return { runs: page, next_cursor: rows.length > limit && last ? encodeCursor(lastValue!, last.id) : null };
}

/** The count statement of a view, not yet run (see listStatement). */
export function countStatement(db: Db, ws: string, f: RunFilter) {
  const inner = db
    .select({ one: sql`1` })
    .from(runIndex)
    .where(and(...conditions(ws, f)))
    .limit(COUNT_CAP + 1)
    .as("hits");
  return db.select({ n: sql<number>`count(*)::int` }).from(inner);
}

/** How many runs a view holds, up to COUNT_CAP + 1 (shown as "10,000+"). */
export async function countReviewRuns(db: Db, ws: string, f: RunFilter): Promise<number> {
  const [row] = await countStatement(db, ws, f);
  return Number(row.n);
}

function itemOf(r: typeof runIndex.$inferSelect): RunListItem {
  return {
    id: r.runId,
    space_id: r.spaceId,
    state: r.state,
    outcome: r.outcome,
    goal: r.goal,
    goal_from: r.goalFrom,
    harness_id: r.harnessId,
    agent: r.agent,
    person_id: r.personId,
    created_at: iso(r.createdAt)!,
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
    duration_ms: r.durationMs,
    steps_done: r.stepsDone,
    steps_planned: r.stepsPlanned,
    tokens: r.tokens === null ? null : Number(r.tokens),
    cost_usd: r.costUsd,
    files: r.files,
    additions: r.additions,
    deletions: r.deletions,
    failed_checks: r.failedChecks,
    verdict: r.verdict as RunListItem["verdict"],
    annotations: r.annotations,
  };
}

/** The agents named in a workspace's runs (the agent filter's choices). */
export async function agentsOf(db: Db, ws: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ agent: runIndex.agent })
    .from(runIndex)
    .where(and(eq(runIndex.workspaceId, ws), isNotNull(runIndex.agent)))
    .limit(200);
  return rows.map((r) => r.agent!).sort();
}

export async function savedViewsOf(db: Db, personId: string): Promise<SavedView[]> {
  const rows = await db
    .select()
    .from(savedViews)
    .where(eq(savedViews.personId, personId))
    .orderBy(asc(savedViews.createdAt))
    .limit(100);
  return rows.map((r) => ({ id: r.id, name: r.name, query: r.query, created_at: iso(r.createdAt)! }));
}

export async function saveView(
  db: Db,
  v: { id: string; workspaceId: string; personId: string; name: string; query: string },
): Promise<void> {
  await db.insert(savedViews).values(v);
}

/** Delete a person's own saved view; false when they have none by that id. */
export async function deleteView(db: Db, personId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(savedViews)
    .where(and(eq(savedViews.id, id), eq(savedViews.personId, personId)))
    .returning({ id: savedViews.id });
  return rows.length > 0;
}

/** Every event of a run, ascending by seq, as stored (the exact JSON served everywhere). */
export async function runEventBodies(db: Db, runId: string): Promise<string[]> {
  const rows = await db
    .select({ body: events.body })
    .from(events)
    .where(eq(events.runId, runId))
    .orderBy(asc(events.seq));
  return rows.map((r) => r.body);
}

/** Names of people, harnesses (with their kind) and rooms of a workspace, by id. */
export async function namesOf(db: Db, ws: string) {
  const [people, hs, rooms] = await Promise.all([
    db.select({ id: persons.id, name: persons.name }).from(persons).where(eq(persons.workspaceId, ws)),
    db
      .select({ id: harnesses.id, name: harnesses.name, kind: harnesses.kind })
      .from(harnesses)
      .where(eq(harnesses.workspaceId, ws)),
    db.select({ id: spaces.id, name: spaces.name }).from(spaces).where(eq(spaces.workspaceId, ws)),
  ]);
  return { people, harnesses: hs, rooms };
}

/** The same names as records by id: what the review pages and the CSV write. */
export async function directoryOf(db: Db, ws: string) {
  const n = await namesOf(db, ws);
  const byId = (rows: { id: string; name: string }[]) => Object.fromEntries(rows.map((r) => [r.id, r.name]));
  return { persons: byId(n.people), harnesses: byId(n.harnesses), rooms: byId(n.rooms) };
}

/** A room's events with seqs in [from, to], ascending (a run's replay: the room while it ran). */
export async function spaceEventsBetween(
  db: Db,
  ws: string,
  spaceId: string,
  from: number,
  to: number,
): Promise<string[]> {
  const rows = await db
    .select({ body: events.body })
    .from(events)
    .where(and(eq(events.workspaceId, ws), eq(events.spaceId, spaceId), gte(events.seq, from), lte(events.seq, to)))
    .orderBy(asc(events.seq));
  return rows.map((r) => r.body);
}
