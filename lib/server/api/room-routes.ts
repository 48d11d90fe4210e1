import type { Hono } from "hono";
import { type DecisionsAnswer, type RoomAnswer, type RoomRevisionsAnswer } from "@/lib/core/protocol";
import { getRoom, listDecisions, roomRevisions } from "@/lib/server/queries/rooms";
import type { ChipsServices } from "../services";
import { spaceScope } from "./access";
import { json, type ApiEnv } from "./http";

/**
 * A room's state (docs/PROTOCOL.md §6): its intent and outcome and their history. Saves are
 * `room.updated` events (POST /api/v1/events), judged by the writer ([ROOM1]).
 */
export function roomRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.get("/api/v1/spaces/:space/room", async (c) => {
    const space = await spaceScope(svc, c);
    if (space instanceof Response) return space;
    return json({ room: await getRoom(svc.db, space.workspaceId, space.id) } satisfies RoomAnswer);
  });

  app.get("/api/v1/spaces/:space/revisions", async (c) => {
    const space = await spaceScope(svc, c);
    if (space instanceof Response) return space;
    return json({ revisions: await roomRevisions(svc.db, space.workspaceId, space.id) } satisfies RoomRevisionsAnswer);
  });

  app.get("/api/v1/spaces/:space/decisions", async (c) => {
    const space = await spaceScope(svc, c);
    if (space instanceof Response) return space;
    return json({ decisions: await listDecisions(svc.db, space.workspaceId, space.id) } satisfies DecisionsAnswer);
  });
}
