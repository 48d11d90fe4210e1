import { io, type Socket } from "socket.io-client";
import {
  PROTOCOL_VERSION,
  ROOM_EVENTS,
  type Frame,
  type HistoryAck,
  type JoinAck,
  type PresenceChange,
  type PresentPerson,
  type RoomClientToServer,
  type RoomServerToClient,
  type RoomSnapshot,
} from "@/lib/core/protocol";

/** An event as a room receives it: a stored event plus its space's previous seq ([RT4]). */
export type FeedEvent = Frame;
export type { RoomSnapshot };

/** `storage`: connected, but the server cannot reach its database; the feed rejoins by itself when it can. */
export type FeedStatus = "connecting" | "live" | "reconnecting" | "storage" | "revoked" | "error";

/** How long a feed waits before asking again while the server's storage is away. */
const STORAGE_RETRY_MS = 1000;

export interface RoomFeedOptions {
  spaceId: string;
  /** The server's base URL; the page's own origin when left out (browsers). */
  url?: string;
  /** The last seq this client already holds. */
  afterSeq?: number;
  /** A person API token (scripts, tests); browsers use their session cookie. */
  token?: string;
  /** Extra headers for the handshake (Node clients: a session cookie). */
  headers?: Record<string, string>;
  /** Socket.IO transports, WebSocket alone unless told (a client behind a proxy that only polls: ["polling"]). */
  transports?: ("websocket" | "polling")[];
  /** Called with new events, in seq order, each once. */
  onEvents?: (events: FeedEvent[]) => void;
  /** Called when the server sent the room's state instead of a long catch-up: start over from it. */
  onSnapshot?: (snapshot: RoomSnapshot) => void;
  onStatus?: (status: FeedStatus, detail?: string) => void;
  /** Who is in the room now (people with it open, on every node), the whole list on each change. */
  onPeople?: (people: PresentPerson[]) => void;
  /** An owner changed this person's role (docs/ROLES.md): the server judges by it from now on. */
  onRole?: (role: string) => void;
  /** A harness of the workspace came or went ([RUN1] presence). */
  onPresence?: (p: PresenceChange) => void;
}

/**
 * The one place a client joins a room and keeps its feed whole: join after the last seq
 * held, drop what it already has, put arrivals in seq order, and rejoin from its last seq
 * when `prev_seq` shows a gap or the connection comes back ([RT1], [RT2], [RT4]).
 */
export class RoomFeed {
  readonly socket: Socket<RoomServerToClient, RoomClientToServer>;
  private last: number;
  private joining = false;
  private rejoinWanted = false;
  private stopped = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  /** Who is in the room: the whole list on joining, then what changed ([RT5]). */
  private people = new Map<string, PresentPerson>();

  constructor(private opts: RoomFeedOptions) {
    this.last = opts.afterSeq ?? 0;
    const common = {
      path: "/socket.io",
      transports: opts.transports ?? ["websocket"],
      reconnectionDelay: 250,
      reconnectionDelayMax: 2000,
      auth: opts.token ? { token: opts.token } : undefined,
      extraHeaders: opts.headers,
      withCredentials: true,
    };
    this.socket = opts.url ? io(opts.url, common) : io(common);
    this.socket.on("connect", () => void this.join());
    this.socket.on("disconnect", () => this.status("reconnecting"));
    this.socket.on("connect_error", (e) => {
      if (e.message === "unauthorized") return this.status("error", e.message);
      this.status(e.message === "unavailable" ? "storage" : "reconnecting", e.message);
      // Refused by the server's handshake (its storage is away): Socket.IO will not retry that by itself.
      if (!this.socket.active) this.later(() => this.socket.connect());
    });
    // The server lost (or found again) its database: say so, and catch up once it is back.
    // The person's access was revoked: the server closes the socket; it must not come back.
    this.socket.on(ROOM_EVENTS.revoked, () => {
      this.status("revoked");
      this.stopped = true;
    });
    this.socket.on(ROOM_EVENTS.storage, (s) => (s.available ? void this.join() : this.status("storage")));
    this.socket.on(ROOM_EVENTS.events, (events) => this.receive(events));
    this.socket.on(ROOM_EVENTS.snapshot, (s) => this.reset(s));
    this.socket.on(ROOM_EVENTS.people, (p) => {
      if (p.space_id !== opts.spaceId) return;
      if ("people" in p) this.people = new Map(p.people.map((x) => [x.id, x]));
      else {
        for (const id of p.left) this.people.delete(id);
        for (const x of p.joined) this.people.set(x.id, x);
      }
      opts.onPeople?.([...this.people.values()]);
    });
    this.socket.on(ROOM_EVENTS.presence, (p) => opts.onPresence?.(p));
    this.socket.on(ROOM_EVENTS.role, (r) => opts.onRole?.(r.role));
  }

  /** The seq of the newest event held. */
  get lastSeq(): number {
    return this.last;
  }

  /** Older events before a seq, ascending (history paging). */
  async older(beforeSeq: number | null, limit = 200): Promise<FeedEvent[]> {
    const r: HistoryAck = await this.socket
      .timeout(10_000)
      .emitWithAck(ROOM_EVENTS.history, { space_id: this.opts.spaceId, before_seq: beforeSeq, limit });
    if (!r.ok) throw new Error(`history refused: ${r.error}`);
    return r.events;
  }

  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.socket.disconnect();
  }

  private later(fn: () => void) {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped) fn();
    }, STORAGE_RETRY_MS);
  }

  private status(s: FeedStatus, detail?: string) {
    if (!this.stopped) this.opts.onStatus?.(s, detail);
  }

  private async join(): Promise<void> {
    if (this.joining) {
      this.rejoinWanted = true;
      return;
    }
    this.joining = true;
    this.status("connecting");
    try {
      const ack: JoinAck = await this.socket
        .timeout(15_000)
        .emitWithAck(ROOM_EVENTS.join, { v: PROTOCOL_VERSION, space_id: this.opts.spaceId, after_seq: this.last });
      if (ack.ok) this.status("live");
      else if (ack.error === "unavailable" || ack.error === "internal") {
        this.status("storage", ack.error);
        this.later(() => void this.join());
      } else this.status("error", ack.error);
    } catch (e) {
      // No ack in time: the connection is likely gone; the next connect joins again.
      this.status("reconnecting", (e as Error).message);
    } finally {
      this.joining = false;
      if (this.rejoinWanted && this.socket.connected) {
        this.rejoinWanted = false;
        void this.join();
      }
    }
  }

  private receive(batch: FeedEvent[]) {
    const fresh: FeedEvent[] = [];
    for (const e of [...batch].sort((a, b) => a.seq - b.seq)) {
      if (e.space_id !== this.opts.spaceId || e.seq <= this.last) continue; // not ours, or held already
      if (e.prev_seq !== this.last) {
        // A hole: something between our last and this one never arrived. Ask again from our last.
        this.flush(fresh);
        void this.join();
        return;
      }
      fresh.push(e);
      this.last = e.seq;
    }
    this.flush(fresh);
  }

  private flush(fresh: FeedEvent[]) {
    if (fresh.length) this.opts.onEvents?.(fresh);
  }

  private reset(s: RoomSnapshot) {
    if (s.space_id !== this.opts.spaceId) return;
    this.last = s.events.length ? s.events[s.events.length - 1].seq : 0;
    this.opts.onSnapshot?.(s);
  }
}
