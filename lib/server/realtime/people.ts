import { z } from "zod";
import type { PeopleChange, PresentPerson as Here } from "@/lib/core/protocol";

/** The Postgres channel on which nodes tell each other who has which room open. */
export const PEOPLE_CHANNEL = "chips_people";

/** A room's sockets are told what changed in its people list at most once per this many ms (RoomPeople). */
export const PEOPLE_THROTTLE_MS = 250;

/** NOTIFY payloads stay well under Postgres's 8000 bytes: a longer list is cut. */
const MAX_PAYLOAD = 7000;

const Said = z.union([
  // Node n's people in space s (the whole list there; empty when none are left).
  z.object({ n: z.string(), s: z.string(), p: z.array(z.object({ id: z.string(), name: z.string() })) }),
  // Node n asks the others to say their lists again (it has just started or reconnected).
  z.object({ n: z.string(), q: z.literal(1) }),
]);

function parse(payload: string) {
  try {
    const m = Said.safeParse(JSON.parse(payload));
    return m.success ? m.data : null;
  } catch {
    return null;
  }
}

interface Options {
  nodeId: string;
  /** Tell a room's sockets on this node what changed in its list (all but `except`, a joiner told the whole list just now). */
  emit: (spaceId: string, change: PeopleChange, except?: string) => void;
  /** Tell one socket that just joined the room the whole list. */
  emitTo: (socketId: string, spaceId: string, people: Here[]) => void;
  /** NOTIFY the other nodes (absent on the embedded database: one node). */
  publish?: (payload: string) => Promise<void>;
  /** A node repeats its lists this often; another node's list older than three times this is dropped (it died). */
  refreshMs: number;
  /** A room's sockets are told at most once per this many ms (0: on every change). */
  throttleMs?: number;
  onError: (e: unknown) => void;
  now?: () => number;
}

/** One room on this node: its sockets, who it last told its sockets, and what changed since. */
interface Room {
  /** This node's sockets in the room, and each person's count of them. */
  sockets: Map<string, Here>;
  mine: Map<string, { here: Here; n: number }>;
  /** Each other node's people here, as it last said them. */
  remote: Map<string, { people: Map<string, Here>; at: number }>;
  /** Everyone here, on any node, each person once. */
  present: Map<string, Here>;
  /** Who the room's sockets were last told is here. */
  told: Set<string>;
  /** People who came or went since the room was last told. */
  touched: Set<string>;
  /** A joiner was told the whole list while changes waited: each of them must go out, even one undone since. */
  toldJoinerMidway: boolean;
  /** This node's own list changed since it last said it to the other nodes. */
  unsaid: boolean;
  /** Open while the room's sockets were told within the last `throttleMs`, and the other nodes this node's list. */
  tellWindow: NodeJS.Timeout | null;
  sayWindow: NodeJS.Timeout | null;
}

/**
 * Who has each room open, across the nodes sharing one Postgres ([RT5]): this node's sockets,
 * and each other node's list as it last said it. A node says a room's list whenever it changes
 * (at most once per window) and again every `refreshMs`, so a node that died without a word
 * drops out of the lists.
 *
 * A socket that joins is told the whole list, at once; the room's sockets are then told only
 * what changed — who came (`joined`), who went (`left`) — and only when the list changed: a
 * person's second tab (or a reconnect) changes nothing. Telling every socket the whole list on
 * every change made N different people joining cost each socket N lists of up to N people: N²
 * per socket, 5,000 people ~12 MB each, and a `JSON.stringify` of the list per join on the
 * server. A room is told at most once per `throttleMs` (PEOPLE_THROTTLE_MS): a change with no
 * window open is told at once and opens the window; changes within it go out together when it
 * closes — which opens the next window if that told anything. Each person's coming or going is
 * then told to each socket about once: N joins cost each socket O(N) people, in as many frames
 * as windows passed.
 */
export class RoomPeople {
  private rooms = new Map<string, Room>();
  private timer: NodeJS.Timeout | null = null;
  /** Shut down (leaveAll): joins, leaves and other nodes' words change nothing and say nothing. */
  private gone = false;
  /** NOTIFYs not yet answered: shutting down waits for them before the database closes. */
  private sending = new Set<Promise<void>>();
  private readonly now: () => number;
  private readonly throttleMs: number;
  /** How this node's own payloads begin (`say` writes `n` first): every node hears itself, every refresh. */
  private readonly own: string;

  constructor(private readonly o: Options) {
    this.own = `{"n":${JSON.stringify(o.nodeId)},`;
    this.now = o.now ?? Date.now;
    this.throttleMs = o.throttleMs ?? PEOPLE_THROTTLE_MS;
    if (o.publish) {
      this.timer = setInterval(() => this.refresh(), o.refreshMs);
      this.timer.unref();
    }
  }

  joined(spaceId: string, socketId: string, person: Here) {
    if (this.gone) return;
    const r = this.room(spaceId);
    const midway = r.touched.size > 0;
    r.sockets.set(socketId, person);
    const m = r.mine.get(person.id);
    if (m) m.n++;
    else {
      r.mine.set(person.id, { here: person, n: 1 });
      r.unsaid = true;
      this.update(r, person.id);
    }
    this.o.emitTo(socketId, spaceId, [...r.present.values()]);
    if (midway) r.toldJoinerMidway = true;
    this.changed(spaceId, r, socketId);
  }

  left(spaceId: string, socketId: string) {
    if (this.gone) return;
    const r = this.rooms.get(spaceId);
    const person = r?.sockets.get(socketId);
    if (!r || !person) return;
    r.sockets.delete(socketId);
    const m = r.mine.get(person.id)!;
    if (--m.n === 0) {
      r.mine.delete(person.id);
      r.unsaid = true;
      this.update(r, person.id);
    }
    this.changed(spaceId, r);
  }

  /** Rooms held: only while someone has one open here or on another node, or a change waits to be told. */
  held() {
    return { peopleRooms: this.rooms.size };
  }

  /** Everyone with the room open on any node, each person once. */
  list(spaceId: string): Here[] {
    return [...(this.rooms.get(spaceId)?.present.values() ?? [])];
  }

  /** A NOTIFY from any node (this one's own included, which it ignores). */
  heard(payload: string) {
    if (payload.startsWith(this.own)) return; // not parsed: a node's refresh is a NOTIFY per room it has people in
    const m = parse(payload);
    if (!m || m.n === this.o.nodeId || this.gone) return;
    if ("q" in m) {
      for (const spaceId of this.rooms.keys()) if (this.rooms.get(spaceId)!.mine.size) this.say(spaceId);
      return;
    }
    const r = this.room(m.s);
    const before = r.remote.get(m.n)?.people ?? new Map<string, Here>();
    const after = new Map(m.p.map((p) => [p.id, p]));
    if (after.size) r.remote.set(m.n, { people: after, at: this.now() });
    else r.remote.delete(m.n);
    for (const id of before.keys()) if (!after.has(id)) this.update(r, id);
    for (const id of after.keys()) this.update(r, id);
    this.changed(m.s, r);
  }

  /** (Re)listening: what was said meanwhile is lost, so ask every node to say its lists again. */
  listening() {
    if (this.gone) return;
    this.send(JSON.stringify({ n: this.o.nodeId, q: 1 }));
    for (const [spaceId, r] of this.rooms) if (r.mine.size) this.say(spaceId);
  }

  /**
   * The node is shutting down: the other nodes hear now that its rooms are empty — not a
   * grace later, when they would drop a silent node — and from here on nothing is said or
   * told. Called before the sockets are disconnected: their leaves would otherwise each
   * NOTIFY, some after the database has closed. Waits at most `ms` for the NOTIFYs, these and
   * any still unanswered (the leaves of sockets that closed just before: postgres-js's end()
   * does not wait for queries queued behind busy connections, which then reconnect — to a
   * database that may be gone).
   */
  async leaveAll(ms: number) {
    this.gone = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const mine = [...this.rooms].filter(([, r]) => r.mine.size || r.unsaid).map(([s]) => s);
    for (const r of this.rooms.values()) for (const t of [r.tellWindow, r.sayWindow]) if (t) clearTimeout(t);
    this.rooms.clear();
    for (const s of mine) this.say(s); // its list, now empty
    if (!this.sending.size) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.sending), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  private room(spaceId: string): Room {
    let r = this.rooms.get(spaceId);
    if (!r) {
      r = {
        sockets: new Map(),
        mine: new Map(),
        remote: new Map(),
        present: new Map(),
        told: new Set(),
        touched: new Set(),
        toldJoinerMidway: false,
        unsaid: false,
        tellWindow: null,
        sayWindow: null,
      };
      this.rooms.set(spaceId, r);
    }
    return r;
  }

  /**
   * Whether a person has the room open, on this node or (as last said) another, from those
   * sources, into `present`; one whose presence flipped is noted for the room's next frame.
   */
  private update(r: Room, id: string) {
    let p = r.mine.get(id)?.here;
    for (const node of r.remote.values()) p ??= node.people.get(id);
    const was = r.present.has(id);
    if (p) r.present.set(id, p);
    else r.present.delete(id);
    if (was !== !!p) r.touched.add(id);
  }

  /** Something may have changed: tell the room and say this node's list now, each unless its window is open (its end will). */
  private changed(spaceId: string, r: Room, except?: string) {
    if (!r.tellWindow) this.tell(spaceId, r, except);
    if (r.unsaid && !r.sayWindow) this.sayNow(spaceId, r);
    this.forgetIfEmpty(spaceId, r);
  }

  /** Tell the room's sockets what changed since they were last told; a window opens if it told anything. */
  private tell(spaceId: string, r: Room, except?: string) {
    const joined: Here[] = [];
    const left: string[] = [];
    for (const id of r.touched) {
      const p = r.present.get(id);
      // What the room was told already is news only to a socket told the whole list midway.
      if (!r.toldJoinerMidway && !!p === r.told.has(id)) continue;
      if (p) {
        joined.push(p);
        r.told.add(id);
      } else {
        left.push(id);
        r.told.delete(id);
      }
    }
    r.touched.clear();
    r.toldJoinerMidway = false;
    if (!joined.length && !left.length) return;
    this.o.emit(spaceId, { joined, left }, except);
    r.tellWindow = this.window(spaceId, r, () => {
      r.tellWindow = null;
      this.tell(spaceId, r);
    });
  }

  /** Say this node's list to the other nodes; a window opens, at whose end it is said again if it changed meanwhile. */
  private sayNow(spaceId: string, r: Room) {
    r.unsaid = false;
    this.say(spaceId);
    r.sayWindow = this.window(spaceId, r, () => {
      r.sayWindow = null;
      if (r.unsaid) this.sayNow(spaceId, r);
    });
  }

  private window(spaceId: string, r: Room, end: () => void): NodeJS.Timeout | null {
    if (this.throttleMs <= 0) return null;
    const t = setTimeout(() => {
      if (this.rooms.get(spaceId) !== r) return;
      end();
      this.forgetIfEmpty(spaceId, r);
    }, this.throttleMs);
    t.unref();
    return t;
  }

  /** A room nobody has open, with nothing left to tell or say, is forgotten (a later join starts it afresh). */
  private forgetIfEmpty(spaceId: string, r: Room) {
    if (r.sockets.size || r.remote.size || r.touched.size || r.unsaid) return;
    if (r.tellWindow) clearTimeout(r.tellWindow);
    if (r.sayWindow) clearTimeout(r.sayWindow);
    if (this.rooms.get(spaceId) === r) this.rooms.delete(spaceId);
  }

  private refresh() {
    const stale = this.now() - 3 * this.o.refreshMs;
    for (const [spaceId, r] of this.rooms) {
      const dropped = [...r.remote].filter(([, x]) => x.at < stale);
      if (!dropped.length) continue;
      for (const [node] of dropped) r.remote.delete(node);
      for (const [, x] of dropped) for (const id of x.people.keys()) this.update(r, id);
      this.changed(spaceId, r);
    }
    for (const [spaceId, r] of this.rooms) if (r.mine.size) this.say(spaceId);
  }

  /** Say this node's people in a room to the others: as many as fit one NOTIFY. */
  private say(spaceId: string) {
    if (!this.o.publish) return;
    const n = this.o.nodeId;
    const people: Here[] = [];
    let bytes = Buffer.byteLength(JSON.stringify({ n, s: spaceId, p: [] }));
    for (const { here } of this.rooms.get(spaceId)?.mine.values() ?? []) {
      const b = Buffer.byteLength(JSON.stringify(here)) + 1;
      if (bytes + b > MAX_PAYLOAD) break;
      bytes += b;
      people.push(here);
    }
    this.send(JSON.stringify({ n, s: spaceId, p: people }));
  }

  private send(payload: string) {
    if (!this.o.publish) return;
    const sent: Promise<void> = this.o
      .publish(payload)
      .catch(this.o.onError)
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }
}
