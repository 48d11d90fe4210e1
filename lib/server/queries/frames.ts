import { and, asc, desc, eq, gt, lt, lte } from "drizzle-orm";
import type { Db } from "@/db/client";
import { events, spaces } from "@/db/schema";

import { frameJson, type OutFrame } from "@/lib/server/realtime/raw";

const frameCols = {
  seq: events.seq,
  spaceId: events.spaceId,
  type: events.type,
  body: events.body,
  prevSeq: events.prevSeq,
};
type Row = { seq: number; spaceId: string | null; type: string; body: string; prevSeq: number | null };

/** A row as it goes to sockets: the stored body's bytes, never parsed. */
const out = (r: Row): OutFrame => ({
  seq: r.seq,
  spaceId: r.spaceId,
  type: r.type,
  json: frameJson(r.body, r.prevSeq),
});

// Every room query names the workspace too, so it walks the (workspace_id, space_id, seq) index.

async function rowsAfter(db: Db, workspaceId: string, spaceId: string, after: number, limit: number): Promise<Row[]> {
  return db
    .select(frameCols)
    .from(events)
    .where(and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), gt(events.seq, after)))
    .orderBy(asc(events.seq))
    .limit(limit);
}

/** A page back through a room: what a page needs and no more (on PGlite every column crosses from the worker). */
type PageRow = Pick<Row, "seq" | "body" | "prevSeq">;

async function rowsBefore(
  db: Db,
  workspaceId: string,
  spaceId: string,
  before: number | null,
  limit: number,
): Promise<PageRow[]> {
  const inSpace = and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId));
  const rows = await db
    .select({ seq: events.seq, body: events.body, prevSeq: events.prevSeq })
    .from(events)
    .where(before === null ? inSpace : and(inSpace, lt(events.seq, before)))
    .orderBy(desc(events.seq))
    .limit(limit);
  return rows.reverse();
}

/** Events of a space after a seq, ascending, at most `limit`: the stored strings, unparsed. */
export async function spaceFramesAfter(
  db: Db,
  workspaceId: string,
  spaceId: string,
  after: number,
  limit: number,
): Promise<OutFrame[]> {
  return (await rowsAfter(db, workspaceId, spaceId, after, limit)).map(out);
}

/**
 * Whether a space holds more than `n` events after a seq: a walk of seqs on the room's index,
 * no body read. A join far behind asks this instead of reading `n + 1` whole events only to
 * discard them for the snapshot ([RT4]).
 */
export async function spaceHasMoreAfter(
  db: Db,
  workspaceId: string,
  spaceId: string,
  after: number,
  n: number,
): Promise<boolean> {
  const rows = await db
    .select({ seq: events.seq })
    .from(events)
    .where(and(eq(events.workspaceId, workspaceId), eq(events.spaceId, spaceId), gt(events.seq, after)))
    .orderBy(asc(events.seq))
    .limit(1)
    .offset(n);
  return rows.length > 0;
}

/** The newest `limit` events of a space before a seq (or the newest of all), ascending: a snapshot's page, a history page; the stored strings, unparsed. */
export async function spaceFramesBefore(
  db: Db,
  workspaceId: string,
  spaceId: string,
  before: number | null,
  limit: number,
): Promise<Pick<OutFrame, "seq" | "json">[]> {
  return (await rowsBefore(db, workspaceId, spaceId, before, limit)).map((r) => ({
    seq: r.seq,
    json: frameJson(r.body, r.prevSeq),
  }));
}

/** Events of a workspace in (from, to], ascending: what another node committed. */
export async function workspaceFramesBetween(
  db: Db,
  workspaceId: string,
  from: number,
  to: number,
): Promise<OutFrame[]> {
  const rows = await db
    .select(frameCols)
    .from(events)
    .where(and(eq(events.workspaceId, workspaceId), gt(events.seq, from), lte(events.seq, to)))
    .orderBy(asc(events.seq));
  return rows.map(out);
}

export async function spaceInfo(db: Db, spaceId: string) {
  const [row] = await db
    .select({ workspaceId: spaces.workspaceId, head: spaces.seqHead })
    .from(spaces)
    .where(eq(spaces.id, spaceId))
    .limit(1);
  return row ?? null;
}
