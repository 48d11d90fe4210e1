import type http from "node:http";
import { Server, type Socket } from "socket.io";
import { z } from "zod";
import { eq, inArray, sql } from "drizzle-orm";
import { persons, workspaces } from "@/db/schema";
import { canonicalId, History, isId, Join, Leave, PROTOCOL_VERSION, type RoomSnapshot } from "@/lib/protocol";
import { personRole, type Credential, type WorkspaceCredential } from "../credentials";
import { getRoom, listDecisions } from "@/lib/queries/rooms";
import { listRuns, receiptsOf } from "@/lib/queries/runs";
import { roomTasks } from "@/lib/queries/tasks";
import { COMMITS_CHANNEL, type AccessChange, type ChipsServices } from "../services";
import { readCookie, SESSION_COOKIE } from "../sessions";
import { sameOrigin } from "../origin";
import { spaceFramesAfter, spaceFramesBefore, spaceInfo } from "@/lib/queries/frames";
import { framePage, rawParser, type OutFrame, type RawJson } from "./raw";
import { dropSlowConsumers } from "./slow";
import { attachHarnessNamespace } from "./harness";
import { RoomHub } from "./hub";
import { PEOPLE_CHANNEL, RoomPeople } from "./people";
import { log } from "../log";
import { API_CSP, baseHeaders } from "../http-policy";
import { parseAccessPayload, REVOKED_CHANNEL } from "../revoke";

/** How far behind a join may be before it gets the room snapshot instead ([RT4]). */
const CATCH_UP_MAX = 1000;

const RemoteCommit = z.object({ n: z.string(), w: z.string(), f: z.number().int(), t: z.number().int() });

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

type Ack = (answer: unknown) => void;
/** A payload as sent: its events as one raw JSON array of stored strings. */
type Wire<T extends { events: unknown }> = Omit<T, "events"> & { events: RawJson };
const room = (spaceId: string) => `space:${spaceId}`;
const workspaceRoom = (ws: string) => `ws:${ws}`;

/**
 * Socket.IO on the HTTP server, default namespace for people ([RT1], [RT2], [RT4]): join a
 * space after a seq, get what the room is missing and then live events, in seq order,
 * each once, every event carrying its space's `prev_seq`.
 */
export function attachRealtime(server: http.Server, svc: ChipsServices) {
  const io = new Server(server, {
    path: "/socket.io",
    serveClient: false,
    // Upgrades it does not own are Next's (hot reload): never destroy them.
    destroyUpgrade: false,
    maxHttpBufferSize: 64 * 1024,
    pingInterval: 10_000,
    pingTimeout: 8_000,
    // Stored events go out as the strings stored: encoded once per room, never re-serialized.
    parser: rawParser,
  });
  // The handshake and every polling answer carry the same headers as the API's.
  const headers = { ...baseHeaders(svc.config.publicUrl), "content-security-policy": API_CSP };
  const stamp = (h: Record<string, string | string[] | number | undefined>) => void Object.assign(h, headers);
  io.engine.on("initial_headers", stamp);
  io.engine.on("headers", stamp);
  const harness = attachHarnessNamespace(io, svc);
  const hub = new RoomHub(svc.db, {
    emitToRoom: (spaceId, frames, except) => {
      dropSlowConsumers(io, room(spaceId), svc.config.socketMaxBufferedBytes);
      (except.length ? io.to(room(spaceId)).except(except) : io.to(room(spaceId))).emit("events", framePage(frames));
    },
    emitToSocket: (socketId, frames) => io.to(socketId).emit("events", framePage(frames)),
    emitted: (frames) => void harness.route(frames).catch((e) => svc.storage.refuse(e, "command routing")),
  });
  // Presence changes reach every room of the harness's workspace.
  const stopPresence = svc.presence.onChange((p) => {
    if (p.workspace_id) io.to(workspaceRoom(p.workspace_id)).emit("presence", p);
  });
  const onCommit = (ws: string, batch: Parameters<RoomHub["committed"]>[1]) => hub.committed(ws, batch);
  svc.committed.add(onCommit);
  // Several nodes on one Postgres: another node's commit arrives as a NOTIFY; read its rows.
  const listening = svc.database
    .listen?.(
      COMMITS_CHANNEL,
      (payload) => {
        const m = RemoteCommit.safeParse(safeJson(payload));
        if (m.success && m.data.n !== svc.nodeId) hub.remoteCommitted(m.data.w, m.data.f, m.data.t);
      },
      // Back after a lost connection: notifications meanwhile are gone, so read each head again.
      () => void catchUpHeads().catch((e) => svc.storage.refuse(e, "re-reading heads after LISTEN reconnected")),
    )
    .catch((e) => {
      log.error({ err: e }, "LISTEN failed: this node's rooms get other nodes' events only with its own commits");
      return null;
    });
  async function catchUpHeads() {
    const known = hub.workspaces();
    if (!known.length) return;
    const rows = await svc.db
      .select({ id: workspaces.id, head: workspaces.seqHead })
      .from(workspaces)
      .where(inArray(workspaces.id, known));
    for (const r of rows) hub.remoteCommitted(r.id, r.head, r.head);
  }

  io.use(async (socket, next) => {
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
        s.emit("revoked", { reason: "your access to this workspace was revoked" });
        s.disconnect(true);
      }
    }
  };
  async function retell(s: Socket, cred: Credential) {
    try {
      const role = await personRole(svc.db, cred.subjectId);
      if (!role) return;
      s.data.cred = { ...cred, role };
      s.emit("role", { role });
    } catch (e) {
      svc.storage.refuse(e, "telling a socket its new role");
    }
  }
  svc.revocations.add(closeRevoked);
  const revokedElsewhere = svc.database
    .listen?.(REVOKED_CHANNEL, (payload) => {
      const { id, change, node } = parseAccessPayload(payload);
      if (node !== svc.nodeId) svc.revokedHere(id, change);
    })
    .catch((e) => {
      log.error(
        { err: e },
        "LISTEN for revocations failed: other nodes' revocations reach this one within the credential cache time",
      );
      return null;
    });
  // Rooms say "reconnecting to storage" while the database is away, and rejoin when it is back.
  const stopStorage = svc.storage.onChange((s) => io.emit("storage", { available: s.available, since: s.since }));

  // People with a room open, on every node: the room shows who is present.
  const people = new RoomPeople({
    nodeId: svc.nodeId,
    emit: (spaceId, list) => void io.to(room(spaceId)).emit("people", { space_id: spaceId, people: list }),
    publish: svc.database.listen
      ? async (payload) => void (await svc.database.query(sql`select pg_notify(${PEOPLE_CHANNEL}, ${payload})`))
      : undefined,
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

  io.on("connection", (socket) => {
    const cred = socket.data.cred as WorkspaceCredential;
    socket.join(workspaceRoom(cred.workspaceId));
    const joinedSpaces = new Set<string>();

    socket.on("join", async (raw: unknown, ack?: Ack) => {
      const reply: Ack = typeof ack === "function" ? ack : () => {};
      try {
        await join(raw, reply);
      } catch (e) {
        reply({ error: svc.storage.refuse(e, "join") });
      }
    });

    async function join(raw: unknown, reply: Ack) {
      const p = Join.safeParse(raw);
      if (!p.success) return reply({ error: "validation_failed" });
      if (p.data.v !== PROTOCOL_VERSION) return reply({ error: "unsupported_version" });
      if (!isId("space", p.data.space_id)) return reply({ error: "space_not_found" });
      const spaceId = canonicalId(p.data.space_id);
      const info = await spaceInfo(svc.db, spaceId);
      // Another workspace's space answers exactly like a missing one.
      if (!info || info.workspaceId !== cred.workspaceId) return reply({ error: "space_not_found" });

      const [person] = await svc.db
        .select({ name: persons.name })
        .from(persons)
        .where(eq(persons.id, cred.subjectId))
        .limit(1);
      const name = person?.name;
      // A join on a joined space (gap repair) starts over from the client's seq.
      socket.leave(room(spaceId));
      hub.left(spaceId, socket.id);
      const catchUp = hub.beginCatchUp(spaceId);
      try {
        const after = p.data.after_seq;
        const missing =
          after > info.head ? null : await spaceFramesAfter(svc.db, info.workspaceId, spaceId, after, CATCH_UP_MAX + 1);
        let lastSent = after;
        if (!missing || missing.length > CATCH_UP_MAX) {
          // Too far behind (or ahead of a reset store): the room's state, then its newest page.
          const [page, runs, current, decided, tasks] = await Promise.all([
            spaceFramesBefore(svc.db, info.workspaceId, spaceId, null, CATCH_UP_MAX),
            listRuns(svc.db, info.workspaceId, spaceId),
            getRoom(svc.db, info.workspaceId, spaceId),
            listDecisions(svc.db, info.workspaceId, spaceId),
            roomTasks(svc.db, info.workspaceId, spaceId),
          ]);
          lastSent = page.length ? page[page.length - 1].seq : 0;
          const receipts = await receiptsOf(
            svc.db,
            runs.map((x) => x.id),
          );
          const snapshot: Wire<RoomSnapshot> = {
            space_id: spaceId,
            head_seq: lastSent,
            runs,
            receipts,
            events: framePage(page),
            room: current,
            decisions: decided,
            tasks: Object.values(tasks),
          };
          socket.emit("snapshot", snapshot);
        } else if (missing.length) {
          socket.emit("events", framePage(missing));
          lastSent = missing[missing.length - 1].seq;
        }
        const late = catchUp.buffer.filter((f: OutFrame) => f.seq > lastSent);
        if (late.length) {
          socket.emit("events", framePage(late));
          lastSent = late[late.length - 1].seq;
        }
        socket.join(room(spaceId));
        hub.joined(spaceId, socket.id, lastSent);
        joinedSpaces.add(spaceId);
        people.joined(spaceId, socket.id, { id: cred.subjectId, name: name ?? "someone" });
        reply({ ok: true, head_seq: lastSent });
      } finally {
        hub.endCatchUp(catchUp);
      }
    }

    socket.on("history", async (raw: unknown, ack?: Ack) => {
      const reply: Ack = typeof ack === "function" ? ack : () => {};
      try {
        const p = History.safeParse(raw);
        if (!p.success || !isId("space", p.data.space_id)) return reply({ error: "validation_failed" });
        const spaceId = canonicalId(p.data.space_id);
        const info = await spaceInfo(svc.db, spaceId);
        if (!info || info.workspaceId !== cred.workspaceId) return reply({ error: "space_not_found" });
        const events = await spaceFramesBefore(
          svc.db,
          info.workspaceId,
          spaceId,
          p.data.before_seq ?? null,
          p.data.limit ?? 200,
        );
        reply({ ok: true, events: framePage(events) });
      } catch (e) {
        reply({ error: svc.storage.refuse(e, "history") });
      }
    });

    socket.on("leave", (raw: unknown) => {
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
  });

  return {
    io,
    hub,
    dispatcher: harness.dispatcher,
    async close() {
      harness.close();
      svc.committed.delete(onCommit);
      stopPresence();
      stopStorage();
      svc.revocations.delete(closeRevoked);
      await (await revokedElsewhere)?.unlisten().catch(() => {});
      people.close();
      await (await peopleElsewhere)?.unlisten().catch(() => {});
      svc.presence.close();
      await (await listening)?.unlisten().catch(() => {});
      io.disconnectSockets(true);
      await new Promise<void>((r) => io.close(() => r()));
    },
  };
}

/**
 * A person's session cookie (Origin checked: a cross-site page must not ride on it), or a
 * person API token in the handshake's `auth.token` for scripts and tests.
 */
async function authenticate(svc: ChipsServices, socket: Socket): Promise<WorkspaceCredential | null> {
  const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  const address = socket.handshake.address;
  if (svc.attempts.blocked(address) !== null) return null;
  if (typeof token === "string") {
    const cred = await svc.credentials.resolve(token);
    if (!cred) svc.attempts.failed(address);
    return cred?.kind === "person" ? cred : null;
  }
  const headers = socket.handshake.headers;
  const cookie = readCookie(headers.cookie, SESSION_COOKIE);
  const cred = await svc.sessions.resolve(cookie);
  if (!cred && cookie) svc.attempts.failed(address);
  if (!cred || cred.kind === "admin") return null;
  const origin = headers.origin;
  if (origin && !sameOrigin(origin, headers.host, svc.config.publicUrl)) return null;
  return cred;
}
