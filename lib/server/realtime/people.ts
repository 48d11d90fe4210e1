import { z } from "zod";

/** The Postgres channel on which nodes tell each other who has which room open. */
export const PEOPLE_CHANNEL = "chips_people";

interface Here {
  id: string;
  name: string;
}

/** A room's sockets are told its people list at most once per this many ms (RoomPeople). */
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
  /** Tell a room's sockets on this node its list. */
  emit: (spaceId: string, people: Here[]) => void;
  /** Tell one socket that just joined the room its list (when the room's did not change). */
  emitTo: (socketId: string, spaceId: string, people: Here[]) => void;
  /** NOTIFY the other nodes (absent on the embedded database: one node). */
  publish?: (payload: string) => Promise<void>;
  /** A node repeats its lists this often; another node's list older than three times this is dropped (it died). */
  refreshMs: number;
  /** A room's sockets are told its list at most once per this many ms (0: on every change). */
  throttleMs?: number;
  onError: (e: unknown) => void;
  now?: () => number;
}

/**
 * Who has each room open, across the nodes sharing one Postgres: this node's sockets, and
 * each other node's list as it last said it. A node says a room's list whenever it changes
 * and again every `refreshMs`, so a node that died without a word drops out of the lists.
 *
 * A room's sockets are told the list only when it changed: a list is per person, so a
 * person's second tab (or a reconnect) changes nothing, and telling every socket of the room
 * on every join made N joins cost N² sends — 5,000 sockets took minutes to join
 * (bench/realtime/idle.ts). The joining socket itself is always told, at once.
 *
 * N *different* people joining change the list N times, so a room is also told at most once
 * per `throttleMs` (PEOPLE_THROTTLE_MS): a change with no window open is told at once (a lone join shows
 * immediately) and opens the window; changes within it are told together, the latest list
 * only, when it closes — which opens the next window if that told anything.
 */
export class RoomPeople {
  private local = new Map<string, Map<string, Here>>();
  private remote = new Map<string, Map<string, { people: Here[]; at: number }>>();
  /** The list each room's sockets were last told, and this node's own list it last said, as JSON. */
  private told = new Map<string, string>();
  private said = new Map<string, string>();
  /** Rooms told within the last `throttleMs`: the window's end tells them what changed since. */
  private windows = new Map<string, NodeJS.Timeout>();
  private timer: NodeJS.Timeout | null = null;
  /** Shut down (leaveAll): joins, leaves and other nodes' words change nothing and say nothing. */
  private gone = false;
  /** NOTIFYs not yet answered: shutting down waits for them before the database closes. */
  private sending = new Set<Promise<void>>();
  private readonly now: () => number;
  private readonly throttleMs: number;

  constructor(private readonly o: Options) {
    this.now = o.now ?? Date.now;
    this.throttleMs = o.throttleMs ?? PEOPLE_THROTTLE_MS;
    if (o.publish) {
      this.timer = setInterval(() => this.refresh(), o.refreshMs);
      this.timer.unref();
    }
  }

  joined(spaceId: string, socketId: string, person: Here) {
    if (this.gone) return;
    if (!this.local.has(spaceId)) this.local.set(spaceId, new Map());
    this.local.get(spaceId)!.set(socketId, person);
    if (!this.tell(spaceId)) this.o.emitTo(socketId, spaceId, this.list(spaceId));
    this.sayIfChanged(spaceId);
  }

  left(spaceId: string, socketId: string) {
    if (this.gone) return;
    const here = this.local.get(spaceId);
    if (!here?.delete(socketId)) return;
    if (!here.size) this.local.delete(spaceId);
    this.tell(spaceId);
    this.sayIfChanged(spaceId);
  }

  /** Everyone with the room open on any node, each person once. */
  list(spaceId: string): Here[] {
    const all = [...(this.local.get(spaceId)?.values() ?? [])];
    for (const r of this.remote.get(spaceId)?.values() ?? []) all.push(...r.people);
    return [...new Map(all.map((p) => [p.id, p])).values()];
  }

  /** A NOTIFY from any node (this one's own included, which it ignores). */
  heard(payload: string) {
    const m = parse(payload);
    if (!m || m.n === this.o.nodeId || this.gone) return;
    if ("q" in m) {
      for (const spaceId of this.local.keys()) this.say(spaceId);
      return;
    }
    if (!this.remote.has(m.s)) this.remote.set(m.s, new Map());
    const nodes = this.remote.get(m.s)!;
    if (m.p.length) nodes.set(m.n, { people: m.p, at: this.now() });
    else nodes.delete(m.n);
    if (!nodes.size) this.remote.delete(m.s);
    this.tell(m.s);
  }

  /** (Re)listening: what was said meanwhile is lost, so ask every node to say its lists again. */
  listening() {
    if (this.gone) return;
    this.send(JSON.stringify({ n: this.o.nodeId, q: 1 }));
    for (const spaceId of this.local.keys()) this.say(spaceId);
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
    for (const t of this.windows.values()) clearTimeout(t);
    this.windows.clear();
    const spaces = [...this.local.keys()];
    this.local.clear();
    for (const s of spaces) this.say(s); // its list, now empty
    if (!this.sending.size) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.sending), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /**
   * Tell the room's sockets its list if it is not what they were last told; whether it did
   * now. Within the room's throttle window it does not: the window's end will.
   */
  private tell(spaceId: string): boolean {
    if (this.windows.has(spaceId)) return false;
    const list = this.list(spaceId);
    const json = JSON.stringify(list);
    // An emptied room is forgotten, and a forgotten room was last told nobody: telling it "[]"
    // again would re-open its window, whose end would tell it again — every window, forever.
    if ((this.told.get(spaceId) ?? "[]") === json) return false;
    if (list.length) this.told.set(spaceId, json);
    else this.told.delete(spaceId);
    this.o.emit(spaceId, list);
    if (this.throttleMs > 0) {
      const t = setTimeout(() => {
        this.windows.delete(spaceId);
        this.tell(spaceId);
      }, this.throttleMs);
      t.unref();
      this.windows.set(spaceId, t);
    }
    return true;
  }

  /** Say this node's list to the others if it changed (the refresh says it again anyway). */
  private sayIfChanged(spaceId: string) {
    const json = JSON.stringify(this.mine(spaceId));
    if (this.said.get(spaceId) === json) return;
    if (this.local.has(spaceId)) this.said.set(spaceId, json);
    else this.said.delete(spaceId);
    this.say(spaceId);
  }

  /** This node's people in a room, each person once. */
  private mine(spaceId: string): Here[] {
    return [...new Map([...(this.local.get(spaceId)?.values() ?? [])].map((p) => [p.id, p])).values()];
  }

  private refresh() {
    const stale = this.now() - 3 * this.o.refreshMs;
    for (const [spaceId, nodes] of this.remote) {
      let dropped = false;
      for (const [node, r] of nodes) if (r.at < stale) dropped = nodes.delete(node);
      if (!nodes.size) this.remote.delete(spaceId);
      if (dropped) this.tell(spaceId);
    }
    for (const spaceId of this.local.keys()) this.say(spaceId);
  }

  private say(spaceId: string) {
    if (!this.o.publish) return;
    const people = this.mine(spaceId);
    const n = this.o.nodeId;
    let payload = JSON.stringify({ n, s: spaceId, p: people });
    while (Buffer.byteLength(payload) > MAX_PAYLOAD && people.length) {
      people.pop();
      payload = JSON.stringify({ n, s: spaceId, p: people });
    }
    this.send(payload);
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
