import { and, asc, desc, eq, gt, lt, lte } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events, spaces } from "@/db/schema";

import type { Frame, StoredEvent } from "@/lib/protocol";

export type { Frame };

/** A stored event's JSON as a room receives it: plus `prev_seq` of its space ([RT4]). */
export function toFrame(body: string, prevSeq: number | null): Frame {
  const e: StoredEvent = JSON.parse(body);
  return { ...e, prev_seq: prevSeq ?? 0 };
}

const frameCols = { body: events.body, prevSeq: events.prevSeq };

// Every room query names the workspace too, so it walks the (workspace_id, space_id, seq) index.

/** Events of a space after a seq, ascending, at most `limit`. */
export async function spaceEventsAfter(db: Db, workspaceId: string, spaceId: string, after: number, limit: number): Promise<Frame[]> {
  const rows = await db
    .select(frameCols)
    .from(events)
    .where(and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), gt(events.seq, after)))
    .orderBy(asc(events.seq))
    .limit(limit);
  return rows.map((r) => toFrame(r.body, r.prevSeq));
}

/** The newest `limit` events of a space before a seq (or the newest of all), ascending. */
export async function spaceEventsBefore(db: Db, workspaceId: string, spaceId: string, before: number | null, limit: number): Promise<Frame[]> {
  const inSpace = and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId));
  const rows = await db
    .select(frameCols)
    .from(events)
    .where(before === null ? inSpace : and(inSpace, lt(events.seq, before)))
    .orderBy(desc(events.seq))
    .limit(limit);
  return rows.reverse().map((r) => toFrame(r.body, r.prevSeq));
}

/** Events of a workspace in (from, to], ascending: what another node committed. */
export async function workspaceEventsBetween(db: Db, workspaceId: string, from: number, to: number) {
  return db
    .select({ seq: events.seq, spaceId: events.spaceId, body: events.body, prevSeq: events.prevSeq })
    .from(events)
    .where(and(eq(events.workspaceId, workspaceId), gt(events.seq, from), lte(events.seq, to)))
    .orderBy(asc(events.seq));
}

export async function spaceInfo(db: Db, spaceId: string) {
  const [row] = await db.select({ workspaceId: spaces.workspaceId, head: spaces.seqHead }).from(spaces).where(eq(spaces.id, spaceId)).limit(1);
  return row ?? null;
}
