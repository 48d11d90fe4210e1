import { io, type Socket } from "socket.io-client";
import { ROOM_EVENTS, type AskEvent, type RoomClientToServer, type RoomServerToClient } from "@/lib/core/protocol";

interface Listener {
  event(e: AskEvent): void;
  /** Connected (again: anything may have happened meanwhile) or not. */
  status?(live: boolean): void;
}

/**
 * The page's one connection for the workspace's asks: every person socket is sent each ask
 * event of its workspace as `ask`, whatever page it is on, so the inbox updates and a new
 * ask notifies. Opened on the first listener, closed with the last.
 */
class AskFeed {
  private socket: Socket<RoomServerToClient, RoomClientToServer> | null = null;
  private readonly listeners = new Set<Listener>();

  listen(l: Listener): () => void {
    this.listeners.add(l);
    if (!this.socket) {
      const s: Socket<RoomServerToClient, RoomClientToServer> = io({
        path: "/socket.io",
        transports: ["websocket"],
        withCredentials: true,
        reconnectionDelay: 500,
      });
      s.on("connect", () => this.listeners.forEach((x) => x.status?.(true)));
      s.on("disconnect", () => this.listeners.forEach((x) => x.status?.(false)));
      s.on(ROOM_EVENTS.ask, (e) => this.listeners.forEach((x) => x.event(e)));
      this.socket = s;
    } else if (this.socket.connected) l.status?.(true);
    return () => {
      this.listeners.delete(l);
      if (!this.listeners.size) {
        this.socket?.disconnect();
        this.socket = null;
      }
    };
  }
}

export const askFeed = new AskFeed();
