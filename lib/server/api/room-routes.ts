import type { Context, Hono } from "hono";
import { canonicalId, isId, type DecisionsAnswer, type RoomAnswer, type RoomRevisionsAnswer } from "@/lib/protocol";
import type { Credential } from "../credentials";
import { spaceInfo } from "@/lib/queries/frames";
import { getRoom, listDecisions, roomRevisions } from "@/lib/queries/rooms";
import type { ChipsServices } from "../services";
import { fail, json } from "./http";

export type Env = { Variables: { cred: Credential } };

/**
 * A room's state (docs/PROTOCOL.md §6): its intent and outcome and their history. Saves are
 * `room.updated` events (POST /api/v1/events), judged by the writer ([ROOM1]).
 */
export function roomRoutes(app: Hono<Env>, svc: ChipsServices) {
  app.get("/api/v1/spaces/:space/room", async (c) => {
    const space = await spaceOf(svc, c);
    if (space instanceof Response) return space;
    return json({ room: await getRoom(svc.db, space.workspaceId, space.id) } satisfies RoomAnswer);
  });

  app.get("/api/v1/spaces/:space/revisions", async (c) => {
    const space = await spaceOf(svc, c);
    if (space instanceof Response) return space;
    return json({ revisions: await roomRevisions(svc.db, space.workspaceId, space.id) } satisfies RoomRevisionsAnswer);
  });

  app.get("/api/v1/spaces/:space/decisions", async (c) => {
    const space = await spaceOf(svc, c);
    if (space instanceof Response) return space;
    return json({ decisions: await listDecisions(svc.db, space.workspaceId, space.id) } satisfies DecisionsAnswer);
  });
}

/** The `:space` path parameter: a space of the caller's workspace (another's answers like a missing one). */
export async function spaceOf(svc: ChipsServices, c: Context<Env>) {
  const raw = c.req.param("space") ?? "";
  const info = isId("space", raw) ? await spaceInfo(svc.db, canonicalId(raw)) : null;
  const cred = c.get("cred");
  if (!info || (cred.kind !== "admin" && info.workspaceId !== cred.workspaceId))
    return fail("space_not_found", "no such space in this workspace");
  return { id: canonicalId(raw), workspaceId: info.workspaceId };
}
