import type { Frame, RoomSnapshot } from "@/lib/core/protocol";
import type { Directory } from "@/lib/core/views/names";
import { requirePerson, services } from "@/lib/server/page-context";
import type { Role } from "@/lib/server/roles";
import type { ChipsServices } from "@/lib/server/services";
import { directoryOf } from "@/lib/server/queries/review";
import { roomIn } from "@/lib/server/queries/rooms";
import { workspaceName } from "@/lib/server/queries/workspace";
import { roomSnapshot } from "./room-snapshot";

/** How many of the newest events the page is drawn with; older ones page in on scroll. */
const FIRST_PAGE = 100;

/** What the room page draws from (components/room/room-view.tsx). */
export interface RoomPageData {
  canAct: boolean;
  workspaceName: string;
  roomName: string;
  dir: Directory;
  snapshot: RoomSnapshot;
  /** Each of the runs' harnesses: connected now or not, and since when (server ms). */
  presence: Record<string, { online: boolean; since: number }>;
  statusTtlSeconds: number;
  presenceGraceSeconds: number;
  serverNow: number;
}

/** The room page for the person of this request's session (else off to the login page); null for no such room. */
export async function roomPage(ws: string, space: string): Promise<RoomPageData | null> {
  const me = await requirePerson(ws);
  return roomPageFor(services(), me.role, ws, space);
}

/** The room page for a person of `role`: the room's snapshot (the same a join far behind is sent) and who is who. */
export async function roomPageFor(
  svc: Pick<ChipsServices, "config" | "db" | "presence">,
  role: Role | undefined,
  ws: string,
  space: string,
): Promise<RoomPageData | null> {
  const room = await roomIn(svc.db, ws, space);
  if (!room) return null;
  const [{ frames, ...snap }, name, names] = await Promise.all([
    roomSnapshot(svc.db, ws, room.id, FIRST_PAGE),
    workspaceName(svc.db, ws),
    directoryOf(svc.db, ws),
  ]);
  const harnesses = new Set(snap.runs.map((r) => r.harness_id).filter((h): h is string => !!h));
  return {
    canAct: role !== "viewer",
    workspaceName: name ?? ws,
    roomName: room.name,
    dir: { persons: names.persons, harnesses: names.harnesses },
    snapshot: { ...snap, events: frames.map((f) => JSON.parse(f.json) as Frame) },
    presence: Object.fromEntries(
      [...harnesses].map((h) => {
        const s = svc.presence.state(h);
        return [h, { online: s.online, since: s.since }];
      }),
    ),
    statusTtlSeconds: svc.config.statusTtlSeconds,
    presenceGraceSeconds: svc.config.presenceGraceSeconds,
    serverNow: Date.now(),
  };
}
