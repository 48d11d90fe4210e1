import type http from "node:http";
import { Server } from "socket.io";
import { ROOM_EVENTS } from "@/lib/core/protocol";
import { z } from "zod";
import type { PeopleFrame } from "@/lib/core/protocol";
import { personRole, type Credential } from "../credentials";
import { COMMITS_CHANNEL, type ChipsServices } from "../services";
import { FanoutBus, type AccessChange } from "../buses";
import { framePage, rawParser } from "./raw";
import type { ChipsServer, ChipsSocket } from "./wire";
import { dropSlowConsumers } from "./slow";
import { attachHarnessNamespace } from "./harness";
import { askFanout } from "./asks";
import { ownNoticePrefix } from "../ingest/commit-notice";
import { RoomHub } from "./hub";
import { PEOPLE_CHANNEL, RoomPeople } from "./people";
import { authenticate } from "./authenticate";
import { personSocket, room, workspaceRoom, workspacesInUse } from "./person-socket";
import { log } from "../log";
import { CoalescedNotify } from "../notify";
import { HeadsSweep } from "./heads-sweep";
import { API_CSP, baseHeaders } from "../http-policy";
import { parseAccessPayload, REVOKED_CHANNEL } from "../revoke";

const RemoteCommit = z.object({ n: z.string(), w: z.string(), f: z.number().int(), t: z.number().int() });

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

/**
 * Socket.IO on the HTTP server: the default namespace for people (person-socket.ts: join a
 * space after a seq, get what the room is missing and then live events, in seq order,
 * each once, every event carrying its space's `prev_seq`), /harness for harnesses and
 * runners (harness.ts); commits, revocations and presence from this node and, by
 * LISTEN/NOTIFY, from the others.
 */
export function attachRealtime(server: http.Server, svc: ChipsServices) {
  const io: ChipsServer = new Server(server, {
    path: "/socket.io",
    serveClient: false,
    // Upgrades it does not own are Next's (hot reload): never destroy them.
    destroyUpgrade: false,
    maxHttpBufferSize: 64 * 1024,
    pingInterval: svc.config.socketPingIntervalSeconds * 1000,
    pingTimeout: svc.config.socketPingTimeoutSeconds * 1000,
    // Stored events go out as the strings stored: encoded once per room, never re-serialized.
    parser: rawParser,
  });
  // The handshake and every polling answer carry the same headers as the API's.
  const headers = { ...baseHeaders(svc.config.publicUrl), "content-security-policy": API_CSP };
  const stamp = (h: Record<string, string | string[] | number | undefined>) => void Object.assign(h, headers);
  io.engine.on("initial_headers", stamp);
  io.engine.on("headers", stamp);
  const harness = attachHarnessNamespace(io, svc);
  const fanout = new FanoutBus();
  fanout.subscribe("ask-fanout", askFanout(io, svc));
  fanout.subscribe("harness-routing", (frames) => {
    void harness.route(frames).catch((e) => svc.storage.refuse(e, "command routing"));
  });
  const hub = new RoomHub(svc.db, {
    emitToRoom: (spaceId, frames, except) => {
      const name = room(spaceId);
      // No socket of this node in the room (Socket.IO deletes an emptied room): Socket.IO would
      // still encode the packet and its WebSocket frame, ~3 copies of every event's body.
      if (!io.sockets.adapter.rooms.has(name)) return;
      dropSlowConsumers(io, name, svc.config.socketMaxBufferedBytes);
      (except.length ? io.to(name).except(except) : io.to(name)).emit(ROOM_EVENTS.events, framePage(frames));
    },
    emitToSocket: (socketId, frames) => io.to(socketId).emit(ROOM_EVENTS.events, framePage(frames)),
    emitted: (frames) => fanout.publish(frames),
    // People's sockets join their workspace's room on connecting, harnesses' and runners' theirs on
    // /harness; an ask long-polled here must wake on an answer taken on any node ([SCL3]).
    inUse: (ws) =>
      io.sockets.adapter.rooms.has(workspaceRoom(ws)) ||
      harness.nsp.adapter.rooms.has(workspaceRoom(ws)) ||
      svc.askWaits.holds(ws),
  });
  // Presence changes reach every room of the harness's workspace.
  const stopPresence = svc.presence.onChange((p) => {
    if (p.workspace_id) io.to(workspaceRoom(p.workspace_id)).emit(ROOM_EVENTS.presence, p);
  });
  const leaveCommits = svc.commits.subscribe("room-hub", (ws, batch) => hub.committed(ws, batch));
  const heads = new HeadsSweep(svc.db, hub, () => workspacesInUse([io.sockets, harness.nsp]));
  // Several nodes on one Postgres: another node's commit arrives as a NOTIFY; read its rows.
  // This node's own commits come back too, one per commit: told apart by their first bytes.
  const own = ownNoticePrefix(svc.nodeId);
  const listening = svc.database
    .listen?.(
      COMMITS_CHANNEL,
      (payload) => {
        if (payload.startsWith(own)) return;
        const m = RemoteCommit.safeParse(safeJson(payload));
        if (m.success && m.data.n !== svc.nodeId) hub.remoteCommitted(m.data.w, m.data.f, m.data.t);
      },
      // Back after a lost connection: notifications meanwhile are gone, so read each head again,
      // and let every ask long-poll read its ask again (its workspace may have no head here yet).
      () => {
        svc.askWaits.wakeAll();
        void heads.catchUp().catch((e) => svc.storage.refuse(e, "re-reading heads after LISTEN reconnected"));
      },
    )
    .catch((e) => {
      log.error({ err: e }, "LISTEN failed: this node's rooms get other nodes' events only with its own commits");
      return null;
    });
  // Commits whose notice never came ([SCL4]): one read of heads a round; none with no workspace in use.
  let sweeping = false;
  const sweep =
    svc.database.listen && svc.config.headsSweepSeconds > 0
      ? setInterval(() => {
          if (sweeping || svc.stopping) return;
          sweeping = true;
          heads
            .sweep()
            .catch((e) => svc.storage.refuse(e, "re-reading heads (the sweep for unheard commits)"))
            .finally(() => (sweeping = false));
        }, svc.config.headsSweepSeconds * 1000)
      : null;
  sweep?.unref();

  io.use(async (socket, next) => {
    if (svc.stopping) return next(new Error("shutting_down"));
    try {
      const cred = await authenticate(svc, socket);
      if (!cred) return next(new Error("unauthorized"));
      socket.data.cred = cred;
      next();
    } catch (e) {
      next(new Error(svc.storage.refuse(e, "socket handshake")));
    }
  });
  // A revoked person's rooms, or a revoked harness's (or token's) /harness socket, close at once
  // (on every node); a person whose role changed keeps their rooms and is told the new role.
  const closeRevoked = (id: string, change: AccessChange) => {
    for (const nsp of [io.of("/"), io.of("/harness")]) {
      for (const s of nsp.sockets.values()) {
        const cred = s.data.cred as Credential | undefined;
        if (cred?.subjectId !== id && cred?.tokenId !== id) continue;
        if (change === "role") {
          void retell(s, cred);
          continue;
        }
        s.emit(ROOM_EVENTS.revoked, { reason: "your access to this workspace was revoked" });
        s.disconnect(true);
      }
    }
  };
  async function retell(s: ChipsSocket, cred: Credential) {
    try {
      const role = await personRole(svc.db, cred.subjectId);
      if (!role || cred.kind === "admin") return; // only people have roles
      s.data.cred = { ...cred, role };
      s.emit(ROOM_EVENTS.role, { role });
    } catch (e) {
      svc.storage.refuse(e, "telling a socket its new role");
    }
  }
  const leaveAccess = svc.access.subscribe("sockets", closeRevoked);
  const revokedElsewhere = svc.database
    .listen?.(REVOKED_CHANNEL, (payload) => {
      const { id, change, node } = parseAccessPayload(payload);
      if (node !== svc.nodeId) svc.access.publish(id, change);
    })
    .catch((e) => {
      log.error(
        { err: e },
        "LISTEN for revocations failed: other nodes' revocations reach this one within the credential cache time",
      );
      return null;
    });
  // Rooms say "reconnecting to storage" while the database is away, and rejoin when it is back.
  const stopStorage = svc.storage.onChange((s) =>
    io.emit(ROOM_EVENTS.storage, { available: s.available, since: s.since }),
  );

  // People with a room open, on every node: the room shows who is present.
  const peopleNotices = svc.database.listen ? new CoalescedNotify(svc.database, PEOPLE_CHANNEL) : null;
  const people = new RoomPeople({
    nodeId: svc.nodeId,
    emit: (spaceId, change, except) => {
      const frame: PeopleFrame = { space_id: spaceId, ...change };
      (except ? io.to(room(spaceId)).except(except) : io.to(room(spaceId))).emit(ROOM_EVENTS.people, frame);
    },
    emitTo: (socketId, spaceId, people) => {
      const frame: PeopleFrame = { space_id: spaceId, people };
      io.to(socketId).emit(ROOM_EVENTS.people, frame);
    },
    publish: peopleNotices ? (payload) => peopleNotices.send(payload) : undefined,
    refreshMs: (svc.config.presenceGraceSeconds * 1000) / 3,
    onError: (e) => svc.storage.refuse(e, "telling other nodes who is in a room"),
  });
  const peopleElsewhere = svc.database
    .listen?.(
      PEOPLE_CHANNEL,
      (payload) => people.heard(payload),
      () => people.listening(),
    )
    .catch((e) => {
      log.error({ err: e }, "LISTEN for people failed: rooms show only who is on this node");
      return null;
    });

  // With no sweep (PGlite: one node; or switched off) nothing would read or clear a join's mark.
  const marks = sweep ? heads : { noted: () => {} };
  io.on("connection", (socket) => personSocket(socket, { svc, hub, people, heads: marks }));
  const unregister = svc.idle.add({
    release: (cutoff) => hub.release(cutoff),
    held: () => ({ ...hub.held(), ...people.held(), ...heads.held() }),
  });

  return {
    io,
    hub,
    /**
     * Close every socket at once ([OPS4]) by closing its transport, not with a disconnect
     * packet: a Socket.IO client told "io server disconnect" stays away, one whose transport
     * closed reconnects — through the load balancer, to another node (a harness's commands
     * wait in the store for it). The HTTP server is the caller's to close.
     */
    async close() {
      if (sweep) clearInterval(sweep);
      harness.close();
      unregister();
      leaveCommits();
      stopPresence();
      stopStorage();
      leaveAccess();
      // Before the sockets go: other nodes drop this node's people now, and the leaves of the
      // disconnects below NOTIFY nothing (some would reach a database already closed).
      const leaving = people.leaveAll(1000);
      io.engine.close();
      await leaving;
      await (await revokedElsewhere)?.unlisten().catch(() => {});
      await (await peopleElsewhere)?.unlisten().catch(() => {});
      svc.presence.close();
      await (await listening)?.unlisten().catch(() => {});
    },
  };
}
