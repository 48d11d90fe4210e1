import { notFound } from "next/navigation";
import { requirePerson, services } from "@/lib/server/page-context";
import { spaceEventsBefore } from "@/lib/server/queries/frames";
import { directoryOf } from "@/lib/server/queries/review";
import { getRoom, listDecisions, roomIn } from "@/lib/server/queries/rooms";
import { receiptsOf } from "@/lib/server/queries/runs";
import { asksOfRuns } from "@/lib/server/queries/asks";
import { roomRuns, roomTasks } from "@/lib/server/queries/tasks";
import { workspaceName } from "@/lib/server/queries/workspace";
import { RoomView } from "@/components/room/room-view";

export const dynamic = "force-dynamic";

/** How many of the newest events the page is drawn with; older ones page in on scroll. */
const FIRST_PAGE = 100;

export default async function RoomPage({ params }: { params: Promise<{ ws: string; space: string }> }) {
  const { ws, space } = await params;
  const me = await requirePerson(ws);
  const svc = services();
  const db = svc.db;
  const room = await roomIn(db, ws, space);
  if (!room) notFound();
  // Events first, then runs: a run read a moment later is at least as new as the page.
  const events = await spaceEventsBefore(db, ws, room.id, null, FIRST_PAGE);
  const [runs, current, decided, tasks, name, names] = await Promise.all([
    roomRuns(db, ws, room.id),
    getRoom(db, ws, room.id),
    listDecisions(db, ws, room.id),
    roomTasks(db, ws, room.id),
    workspaceName(db, ws),
    directoryOf(db, ws),
  ]);
  const runIds = runs.map((r) => r.id);
  const [receipts, asks] = await Promise.all([receiptsOf(db, runIds), asksOfRuns(db, runIds)]);
  return (
    <RoomView
      canAct={me.role !== "viewer"}
      workspaceId={ws}
      workspaceName={name ?? ws}
      spaceId={room.id}
      roomName={room.name}
      dir={{ persons: names.persons, harnesses: names.harnesses }}
      initialRuns={runs}
      initialEvents={events}
      initialReceipts={receipts}
      initialAsks={asks}
      initialRoom={current}
      initialDecisions={decided}
      initialTasks={Object.values(tasks)}
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
