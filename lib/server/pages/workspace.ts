import { requirePerson, services } from "@/lib/server/page-context";
import { workspaceAccess } from "@/lib/server/queries/people";
import { directoryOf } from "@/lib/server/queries/review";
import { liveRuns, roomsOf, workspaceName } from "@/lib/server/queries/workspace";

/**
 * The workspace page: its rooms, each with the runs going in it and whose they are, and who
 * is in the workspace. Tokens, last uses, harnesses and invites are the owner's to see;
 * others get only the people, without their tokens.
 */
export async function workspacePage(ws: string) {
  const me = await requirePerson(ws);
  const db = services().db;
  const [access, name, rooms, live, dir] = await Promise.all([
    workspaceAccess(db, ws),
    workspaceName(db, ws),
    roomsOf(db, ws),
    liveRuns(db, ws),
    directoryOf(db, ws),
  ]);
  const isOwner = me.role === "owner";
  return {
    myId: me.subjectId,
    isOwner,
    canAct: me.role !== "viewer",
    name: name ?? ws,
    rooms: rooms.map((r) => ({
      ...r,
      going: live
        .filter((x) => x.spaceId === r.id)
        .map((x) => ({ ...x, harness: x.harnessId ? (dir.harnesses[x.harnessId] ?? "harness") : null })),
    })),
    people: isOwner ? access.people : access.people.map((p) => ({ ...p, tokens: [], last_seen_at: null })),
    harnesses: isOwner ? access.harnesses : [],
    invites: isOwner ? access.invites : [],
  };
}
