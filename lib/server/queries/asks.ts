import { and, asc, eq, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { asks, events, harnesses, runs, spaces } from "@/db/schema";
import { askOf } from "@/db/ask-rows";
import type { Ask, InboxAnswer } from "@/lib/core/protocol";

const WAITING = ["asked", "shown"] as const;

/** One ask of a workspace, or null (another workspace's answers like a missing one). */
export async function getAsk(db: Db, workspaceId: string, askId: string): Promise<Ask | null> {
  const [r] = await db
    .select()
    .from(asks)
    .where(and(eq(asks.id, askId), eq(asks.workspaceId, workspaceId)))
    .limit(1);
  return r ? askOf(r) : null;
}

/** The asks of runs, oldest first: a run's (its page, the API) or a room's (its snapshot). */
export async function asksOfRuns(db: Db, runIds: string[]): Promise<Ask[]> {
  if (!runIds.length) return [];
  const rows = await db.select().from(asks).where(inArray(asks.runId, runIds)).orderBy(asc(asks.seq)).limit(5000);
  return rows.map(askOf);
}

/**
 * The inbox ([ASK4]): a workspace's asks waiting for a person across its rooms, oldest first,
 * with the room's name, the run's goal and the harness's name; one past its expiry is left
 * out (it takes no answer: [ASK6]). `all` lists the newest settled ones too.
 */
export async function inbox(db: Db, workspaceId: string, opts: { waiting: boolean; limit: number }) {
  const now = new Date().toISOString();
  const rows = await db
    .select({ ask: asks, spaceName: spaces.name, runGoal: runs.goal, harnessName: harnesses.name })
    .from(asks)
    .innerJoin(spaces, eq(spaces.id, asks.spaceId))
    .innerJoin(runs, eq(runs.id, asks.runId))
    .leftJoin(harnesses, eq(harnesses.id, asks.harnessId))
    .where(and(eq(asks.workspaceId, workspaceId), opts.waiting ? inArray(asks.state, [...WAITING]) : undefined))
    .orderBy(asc(asks.seq))
    .limit(opts.limit);
  const out: InboxAnswer["asks"] = [];
  for (const r of rows) {
    const a = askOf(r.ask);
    if (opts.waiting && a.expires_at && a.expires_at <= now) continue;
    out.push({ ...a, space_name: r.spaceName, run_goal: r.runGoal, harness_name: r.harnessName });
  }
  return out;
}

/** Asks still waiting past their expiry, oldest first: Chips closes them ([ASK6]). */
export async function expiredAsks(db: Db, now: string, limit: number) {
  return db
    .select({ id: asks.id, workspaceId: asks.workspaceId, runId: asks.runId, request: asks.request })
    .from(asks)
    .where(and(inArray(asks.state, [...WAITING]), isNotNull(asks.expiresAt), lte(asks.expiresAt, now)))
    .orderBy(asc(asks.expiresAt))
    .limit(limit);
}

/** Answers a harness has not said it applied, oldest first, as stored `run.answered` events: sent again on (re)connect. */
export async function unappliedAnswers(db: Db, harnessId: string) {
  return db
    .select({ askId: asks.id, body: events.body })
    .from(asks)
    .innerJoin(
      events,
      and(eq(events.workspaceId, asks.workspaceId), sql`${events.seq} = (${asks.answer} ->> 'seq')::bigint`),
    )
    .where(and(eq(asks.harnessId, harnessId), eq(asks.state, "answered")))
    .orderBy(asc(asks.seq))
    .limit(1000);
}

/** Where an ask's answer goes: its harness, and where the ask stands. */
export async function askRoute(db: Db, askId: string) {
  const [row] = await db
    .select({ harnessId: asks.harnessId, state: asks.state })
    .from(asks)
    .where(eq(asks.id, askId))
    .limit(1);
  return row ?? null;
}
