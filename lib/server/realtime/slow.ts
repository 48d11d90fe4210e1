import type { Server, Socket } from "socket.io";
import { log } from "../log";

const size = (data: unknown) =>
  typeof data === "string" ? data.length : data instanceof Uint8Array ? data.byteLength : 0;

/**
 * Bytes this server holds for one socket and has not handed to the kernel: packets engine.io
 * queues while the transport is still writing (it sends the next batch only once the last
 * one left), plus what the WebSocket has not written yet. A client that reads keeps this near
 * zero; one that stops reading makes it grow with every commit of its rooms.
 */
function bufferedBytes(socket: Socket): number {
  const queued: unknown = Reflect.get(socket.conn, "writeBuffer");
  // Nothing queued: the transport took the last batch as it came, so at most that one batch
  // is still on its way — a socket that reads. Every emit asks this of every socket in the
  // room, so the common case stops here.
  if (!Array.isArray(queued) || queued.length === 0) return 0;
  let n = 0;
  for (const p of queued) n += size(p && typeof p === "object" ? Reflect.get(p, "data") : undefined);
  const ws: unknown = Reflect.get(socket.conn.transport, "socket");
  const inWs = ws && typeof ws === "object" ? Reflect.get(ws, "bufferedAmount") : 0;
  return n + (typeof inWs === "number" ? inWs : 0);
}

/**
 * A socket too far behind is dropped to catch-up instead of buffered without limit: its
 * connection is closed and what waits for it discarded. The client sees a lost connection,
 * reconnects and rejoins from the last seq it holds ([RT2]), reading what it missed from the
 * store, so nothing is lost or doubled.
 */
function drop(socket: Socket, bytes: number) {
  log.warn({ socket: socket.id, bytes }, "socket too far behind: dropped to catch-up");
  socket.conn.close(true);
  const ws: unknown = Reflect.get(socket.conn.transport, "socket");
  const terminate: unknown = ws && typeof ws === "object" ? Reflect.get(ws, "terminate") : undefined;
  if (typeof terminate === "function") terminate.call(ws); // not the 30 s closing handshake it cannot read
}

/** Before a room's next packet: drop its sockets holding more than `max` bytes unsent. */
export function dropSlowConsumers(io: Server, roomName: string, max: number): void {
  const ids = io.sockets.adapter.rooms.get(roomName);
  if (!ids) return;
  let slow: [Socket, number][] | null = null;
  for (const id of ids) {
    const s = io.sockets.sockets.get(id);
    const bytes = s ? bufferedBytes(s) : 0;
    if (s && bytes > max) (slow ??= []).push([s, bytes]);
  }
  for (const [s, bytes] of slow ?? []) drop(s, bytes);
}
