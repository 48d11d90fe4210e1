import { and, desc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { eventsByKey } from "@/db/ingest-sql";
import { otelRuns, runs } from "@/db/schema";
import type { Run } from "@/lib/core/protocol";
import { getRun } from "@/lib/server/queries/runs";
import type { Session } from "./facts";
import { hashedId } from "./plan";

/**
 * What the mapping asks of the store ([OTL3], [OTL4]): which run a session is in now, which of
 * its facts are stored, which of its calls the run has seen.
 */

/**
 * The session's run: the one its resource names; else its latest run, or — when that one
 * finished and the session goes on — the next, made for it now. A run's id is drawn from the
 * workspace, the session and its place among the session's runs, so two nodes making it at
 * once make the same one.
 */
export async function runOfSession(
  database: Database,
  workspaceId: string,
  harnessId: string,
  session: Session,
): Promise<{ runId: string; run: Run | null }> {
  if (session.runId) {
    const run = await getRun(database.db, session.runId);
    // A named run made here is telemetry's own (its silence ends it); one that exists is left to its harness.
    if (!run)
      await database.db
        .insert(otelRuns)
        .values({ runId: session.runId, workspaceId, harnessId, sessionKey: session.key, segment: 0 })
        .onConflictDoNothing();
    return { runId: session.runId, run };
  }
  const [last] = await database.db
    .select({ runId: otelRuns.runId, segment: otelRuns.segment })
    .from(otelRuns)
    .where(and(eq(otelRuns.workspaceId, workspaceId), eq(otelRuns.sessionKey, session.key)))
    .orderBy(desc(otelRuns.segment))
    .limit(1);
  if (last) {
    const run = await getRun(database.db, last.runId);
    if (!run || run.state !== "finished" || !session.segments) return { runId: last.runId, run };
  }
  const segment = last ? last.segment + 1 : 0;
  const runId = hashedId("run_", `${workspaceId}:${session.key}:${segment}`);
  await database.db
    .insert(otelRuns)
    .values({ runId, workspaceId, harnessId, sessionKey: session.key, segment })
    .onConflictDoNothing();
  return { runId, run: null };
}

/** The keys of these that are stored in the workspace. */
export async function storedKeys(database: Database, workspaceId: string, keys: string[]): Promise<Set<string>> {
  return new Set((await eventsByKey(database.run, workspaceId, [...new Set(keys)])).keys());
}

/** The call_ids of these that the run has a tool event for (the judge's own index, db/migrations/0018). */
export async function seenCalls(database: Database, runId: string, callIds: string[]): Promise<Set<string>> {
  if (!callIds.length) return new Set();
  const rows = await database.run<{ call_id: string }>(
    `select distinct (body::jsonb) ->> 'call_id' as call_id from events
      where run_id = $1 and type in ('tool.started', 'tool.finished') and ((body::jsonb) ->> 'call_id') = any($2::text[])`,
    [runId, [...new Set(callIds)]],
  );
  return new Set(rows.map((r) => r.call_id));
}

/**
 * Runs made from telemetry that are still going and have heard nothing for `quietSeconds`
 * ([OTL4]: a session's end is its silence), with their harness.
 */
export async function quietRuns(database: Database, quietSeconds: number, limit = 100) {
  const before = new Date(Date.now() - quietSeconds * 1000).toISOString();
  return database.db
    .select({ runId: otelRuns.runId, workspaceId: otelRuns.workspaceId, harnessId: otelRuns.harnessId })
    .from(otelRuns)
    .innerJoin(runs, eq(runs.id, otelRuns.runId))
    .where(and(inArray(runs.state, ["running", "paused"]), lt(runs.updatedAt, before)))
    .orderBy(sql`${runs.updatedAt}`)
    .limit(limit);
}
