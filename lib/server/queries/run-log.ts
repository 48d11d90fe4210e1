import { and, asc, count, eq, gt, inArray, lt, type SQL } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events } from "@/db/schema";
import type { Receipt, StoredEvent } from "@/lib/core/protocol";
import { CALL_EVENTS } from "@/lib/core/review/tool-calls";
import { asksOfRuns } from "./asks";
import {
  BETWEEN_SHOWN,
  callsFrom,
  HEAD_TYPES,
  STEP_EVENTS,
  TOOL_TYPES,
  labelled,
  LOG_PAGE,
  LOG_SECTIONS,
  type LogSection,
  type RunLog,
} from "@/lib/core/review/run-log";

/**
 * Windows of one run's log, read in seq order through `events_run_seq_idx` (run_id, seq):
 * each read is bounded, so the index hands rows over in order and the read stops at its
 * limit — no sort of the run's whole log, no 10,000 bodies to move for a page that draws a
 * hundred (docs/PERFORMANCE.md, the review pages).
 */

/** Stored bodies of one window, ascending, and whether the log goes on past it. */
export interface BodyWindow {
  bodies: string[];
  /** The seq to read on after, when there is more; else null. */
  next: number | null;
}

/** What a window asks for: seq > `after` (and < `before` when given), of these types when given, at most `limit`. */
interface WindowAsk {
  after?: number;
  before?: number;
  types?: readonly string[];
  limit: number;
}

/** A window's statement, not yet run (one row past the limit tells whether there is more): what the bench explains. */
export function runEventWindowStatement(db: Db, runId: string, o: WindowAsk) {
  const c: SQL[] = [eq(events.runId, runId), gt(events.seq, o.after ?? 0)];
  if (o.before !== undefined) c.push(lt(events.seq, o.before));
  if (o.types) c.push(inArray(events.type, [...o.types]));
  return db
    .select({ seq: events.seq, body: events.body })
    .from(events)
    .where(and(...c))
    .orderBy(asc(events.seq))
    .limit(o.limit + 1);
}

/** Up to `limit` of a run's events in a window, ascending, as stored. */
export async function runEventWindow(db: Db, runId: string, o: WindowAsk): Promise<BodyWindow> {
  const rows = await runEventWindowStatement(db, runId, o);
  const more = rows.length > o.limit;
  const kept = more ? rows.slice(0, o.limit) : rows;
  return { bodies: kept.map((r) => r.body), next: more ? kept[kept.length - 1].seq : null };
}

/** How many of a run's events lie strictly between two seqs (`before` left out: to the end). */
async function runEventCount(db: Db, runId: string, after: number, before?: number): Promise<number> {
  const c: SQL[] = [eq(events.runId, runId), gt(events.seq, after)];
  if (before !== undefined) c.push(lt(events.seq, before));
  const [row] = await db
    .select({ n: count() })
    .from(events)
    .where(and(...c));
  return Number(row?.n ?? 0);
}

/** The seq of a run's first event, or null for a run with none. */
export async function firstRunSeq(db: Db, runId: string): Promise<number | null> {
  const [row] = await db
    .select({ seq: events.seq })
    .from(events)
    .where(eq(events.runId, runId))
    .orderBy(asc(events.seq))
    .limit(1);
  return row?.seq ?? null;
}

const parse = (bodies: string[]) => bodies.map((b) => JSON.parse(b) as StoredEvent);

/**
 * The run page's log of a run (lib/core/review/run-log.ts) by windowed reads: the few whole
 * events, each long section's first page, and each command's first events between press
 * and answer with their count. The same answer `runLogOf` gives over the whole log.
 */
export async function loadRunLog(db: Db, runId: string, receipts: readonly Receipt[]): Promise<RunLog> {
  const entries = Object.entries(LOG_SECTIONS) as [LogSection, string][];
  const [head, windows, between, steps, tools, asks] = await Promise.all([
    runEventWindow(db, runId, { types: HEAD_TYPES, limit: 10_000 }),
    Promise.all(entries.map(([, type]) => runEventWindow(db, runId, { types: [type], limit: LOG_PAGE }))),
    Promise.all(
      receipts.map(async (r) => {
        const before = r.ack_seq ?? undefined;
        const [w, n] = await Promise.all([
          runEventWindow(db, runId, { after: r.seq, before, limit: BETWEEN_SHOWN }),
          runEventCount(db, runId, r.seq, before),
        ]);
        return [r.command_id, { count: n, events: parse(w.bodies).map(labelled) }] as const;
      }),
    ),
    runEventWindow(db, runId, { types: ["run.step"], limit: STEP_EVENTS }),
    runEventWindow(db, runId, { types: TOOL_TYPES, limit: CALL_EVENTS }),
    // The asks read model (the one projection's rows, kept with the log): no fold of the log here.
    asksOfRuns(db, [runId]),
  ]);
  const first = parse(head.bodies);
  return {
    head: first,
    calls: callsFrom(first, parse(steps.bodies), parse(tools.bodies)),
    sections: Object.fromEntries(
      entries.map(([k], i) => [k, { events: parse(windows[i].bodies), next: windows[i].next }]),
    ) as RunLog["sections"],
    between: Object.fromEntries(between),
    asks,
  };
}
