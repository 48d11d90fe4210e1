import {
  canonicalId,
  History,
  isId,
  Join,
  Leave,
  PROTOCOL_VERSION,
  ROOM_EVENTS,
  type HistoryAck,
  type JoinAck,
} from "@/lib/core/protocol";
import type { WorkspaceCredential } from "../credentials";
import { roomSnapshot } from "@/lib/server/pages/room-snapshot";
import { personName } from "@/lib/server/queries/people";
import { spaceFramesAfter, spaceFramesBefore, spaceHasMoreAfter, spaceInfo } from "@/lib/server/queries/frames";
import type { ChipsServices } from "../services";
import { framePage, type OutFrame, type RawJson } from "./raw";
import type { ChipsSocket } from "./wire";
import type { HeadsSweep } from "./heads-sweep";
import type { RoomHub } from "./hub";
import type { RoomPeople } from "./people";

/** How far behind a join may be before it gets the room snapshot instead ([RT4]). */
const CATCH_UP_MAX = 1000;

export const room = (spaceId: string) => `space:${spaceId}`;
const WORKSPACE_ROOM = "ws:";
export const workspaceRoom = (ws: string) => `${WORKSPACE_ROOM}${ws}`;

/** The workspaces with a socket in any of these namespaces (each socket sits in its `workspaceRoom`). */
export function workspacesInUse(namespaces: { adapter: { rooms: Map<string, unknown> } }[]): string[] {
  const out: string[] = [];
  for (const n of namespaces)
    for (const name of n.adapter.rooms.keys())
      if (name.startsWith(WORKSPACE_ROOM)) out.push(name.slice(WORKSPACE_ROOM.length));
  return out;
}

/**
 * A person's socket on the default namespace ([RT1], [RT2], [RT4]): join a space after a
 * seq, get what the room is missing and then live events, in seq order, each once; page
 * back through history; leave.
 */
export function personSocket(
  socket: ChipsSocket,
  {
    svc,
    hub,
    people,
    heads,
  }: { svc: Pick<ChipsServices, "db" | "storage">; hub: RoomHub; people: RoomPeople; heads: Pick<HeadsSweep, "noted"> },
) {
  const cred = socket.data.cred as WorkspaceCredential; // the handshake admits only people (authenticate.ts)
  socket.join(workspaceRoom(cred.workspaceId));
  const joinedSpaces = new Set<string>();

  // Sent by untrusted clients: every payload is parsed, and the ack may be missing.
  socket.on(ROOM_EVENTS.join, async (raw: unknown, ack?: (a: JoinAck) => void) => {
    const reply = typeof ack === "function" ? ack : () => {};
    try {
      await join(raw, reply);
    } catch (e) {
      reply({ error: svc.storage.refuse(e, "join") });
    }
  });

  async function join(raw: unknown, reply: (a: JoinAck) => void) {
    const p = Join.safeParse(raw);
    if (!p.success) return reply({ error: "validation_failed" });
    if (p.data.v !== PROTOCOL_VERSION) return reply({ error: "unsupported_version" });
    if (!isId("space", p.data.space_id)) return reply({ error: "space_not_found" });
    const spaceId = canonicalId(p.data.space_id);
    const [info, name] = await Promise.all([spaceInfo(svc.db, spaceId), personName(svc.db, cred.subjectId)]);
    // Another workspace's space answers exactly like a missing one.
    if (!info || info.workspaceId !== cred.workspaceId) return reply({ error: "space_not_found" });

    // A join on a joined space (gap repair) starts over from the client's seq.
    socket.leave(room(spaceId));
    hub.left(spaceId, socket.id);
    const catchUp = hub.beginCatchUp(spaceId);
    try {
      const after = p.data.after_seq;
      // Seqs are the workspace's, so a space misses at most `head - after`; only a join further
      // behind than that asks whether the room really holds more than CATCH_UP_MAX since (seqs only).
      const tooFar =
        after > info.head ||
        (info.head - after > CATCH_UP_MAX &&
          (await spaceHasMoreAfter(svc.db, info.workspaceId, spaceId, after, CATCH_UP_MAX)));
      const missing = tooFar
        ? null
        : await spaceFramesAfter(svc.db, info.workspaceId, spaceId, after, CATCH_UP_MAX + 1);
      let lastSent = after;
      if (!missing || missing.length > CATCH_UP_MAX) {
        // Too far behind (or ahead of a reset store): the room's state, then its newest page.
        const { frames, ...snap } = await roomSnapshot(svc.db, info.workspaceId, spaceId, CATCH_UP_MAX);
        lastSent = snap.head_seq;
        socket.emit(ROOM_EVENTS.snapshot, { ...snap, events: framePage(frames) });
      } else if (missing.length) {
        socket.emit(ROOM_EVENTS.events, framePage(missing));
        lastSent = missing[missing.length - 1].seq;
      }
      const late = catchUp.buffer.filter((f: OutFrame) => f.seq > lastSent);
      if (late.length) {
        socket.emit(ROOM_EVENTS.events, framePage(late));
        lastSent = late[late.length - 1].seq;
      }
      socket.join(room(spaceId));
      hub.joined(spaceId, socket.id, lastSent);
      // What the catch-up read through: a commit after it whose notice never comes is the sweep's.
      heads.noted(info.workspaceId, info.head);
      joinedSpaces.add(spaceId);
      people.joined(spaceId, socket.id, { id: cred.subjectId, name: name ?? "someone" });
      reply({ ok: true, head_seq: lastSent });
    } finally {
      hub.endCatchUp(catchUp);
    }
  }

  socket.on(ROOM_EVENTS.history, async (raw: unknown, ack?: (a: HistoryAck<RawJson>) => void) => {
    const reply = typeof ack === "function" ? ack : () => {};
    try {
      const p = History.safeParse(raw);
      if (!p.success || !isId("space", p.data.space_id)) return reply({ error: "validation_failed" });
      const spaceId = canonicalId(p.data.space_id);
      // The page names the socket's workspace, so a row proves the space is its; only an
      // empty page asks whose space it is (one round trip a page, not two).
      const events = await spaceFramesBefore(
        svc.db,
        cred.workspaceId,
        spaceId,
        p.data.before_seq ?? null,
        p.data.limit ?? 200,
      );
      if (!events.length) {
        const info = await spaceInfo(svc.db, spaceId);
        if (!info || info.workspaceId !== cred.workspaceId) return reply({ error: "space_not_found" });
      }
      reply({ ok: true, events: framePage(events) });
    } catch (e) {
      reply({ error: svc.storage.refuse(e, "history") });
    }
  });

  socket.on(ROOM_EVENTS.leave, (raw: unknown) => {
    const p = Leave.safeParse(raw);
    if (!p.success || !isId("space", p.data.space_id)) return;
    const spaceId = canonicalId(p.data.space_id);
    socket.leave(room(spaceId));
    hub.left(spaceId, socket.id);
    joinedSpaces.delete(spaceId);
    people.left(spaceId, socket.id);
  });

  socket.on("disconnect", () => {
    for (const s of joinedSpaces) {
      hub.left(s, socket.id);
      people.left(s, socket.id);
    }
  });
}
