import { and, eq } from "drizzle-orm";
import { notFound } from "next/navigation";
// Known exception to "app/ never imports db/" until this page reads through lib/queries
// (docs/ARCHITECTURE.md, "What may import what").
// eslint-disable-next-line import-x/no-restricted-paths
import { harnesses, persons, spaces, workspaces } from "@/db/schema";
import { requirePerson, services } from "@/lib/server/page-context";
import { getRoom, listDecisions, listRuns } from "@/lib/server/read";
import { spaceEventsBefore } from "@/lib/server/realtime/frames";
import { RoomView } from "@/components/room/room-view";
import { receiptsOf } from "@/lib/server/commands";

export const dynamic = "force-dynamic";

/** How many of the newest events the page is drawn with; older ones page in on scroll. */
const FIRST_PAGE = 100;

export default async function RoomPage({ params }: { params: Promise<{ ws: string; space: string }> }) {
  const { ws, space } = await params;
  const me = await requirePerson(ws);
  const svc = services();
  const db = svc.db;
  const [room] = await db
    .select()
    .from(spaces)
    .where(and(eq(spaces.id, space), eq(spaces.workspaceId, ws)))
    .limit(1);
  if (!room) notFound();
  // Events first, then runs: a run read a moment later is at least as new as the page.
  const events = await spaceEventsBefore(db, ws, room.id, null, FIRST_PAGE);
  const [runs, current, decided, [workspace], people, hs] = await Promise.all([
    listRuns(db, ws, room.id),
    getRoom(db, ws, room.id),
    listDecisions(db, ws, room.id),
    db.select().from(workspaces).where(eq(workspaces.id, ws)).limit(1),
    db.select({ id: persons.id, name: persons.name }).from(persons).where(eq(persons.workspaceId, ws)),
    db.select({ id: harnesses.id, name: harnesses.name }).from(harnesses).where(eq(harnesses.workspaceId, ws)),
  ]);
  return (
    <RoomView
      canAct={me.role !== "viewer"}
      workspaceId={ws}
      workspaceName={workspace?.name ?? ws}
      spaceId={room.id}
      roomName={room.name}
      dir={{ persons: Object.fromEntries(people.map((x) => [x.id, x.name])), harnesses: Object.fromEntries(hs.map((x) => [x.id, x.name])) }}
      initialRuns={runs}
      initialEvents={events}
      initialReceipts={await receiptsOf(db, runs.map((r) => r.id))}
      initialRoom={current}
      initialDecisions={decided}
      initialPresence={Object.fromEntries(
        [...new Set(runs.map((r) => r.harness_id).filter((h): h is string => !!h))].map((h) => {
          const s = svc.presence.state(h);
          return [h, { online: s.online, since: s.since }];
        }),
      )}
      statusTtlSeconds={svc.config.statusTtlSeconds}
      presenceGraceSeconds={svc.config.presenceGraceSeconds}
      serverNow={Date.now()}
    />
  );
}
