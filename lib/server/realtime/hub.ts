import type { Db } from "@/db/client";
import type { Committed } from "../ingest/writer";
import { workspaceFramesBetween } from "@/lib/server/queries/frames";
import { frameJson, type OutFrame } from "./raw";
import { log } from "../log";

/** What the hub needs of the transport. */
export interface RoomSink {
  /** To every socket in the space's room but those in `except`: one packet, encoded once. */
  emitToRoom(spaceId: string, frames: OutFrame[], except: string[]): void;
  emitToSocket(socketId: string, frames: OutFrame[]): void;
  /** Every frame this node fans out, local or remote, in seq order (the fan-out bus, buses.ts). */
  emitted?(frames: OutFrame[]): void;
  /** Whether a socket of the workspace (a person's, a harness's, a runner's) or a long-poll on one of its asks is on this node. */
  inUse?(workspaceId: string): boolean;
}

/** A socket catching up on a space: live frames wait here until its catch-up is sent. */
export interface CatchUp {
  spaceId: string;
  buffer: OutFrame[];
}

/**
 * Live fan-out after commit, transport-free. Per workspace it emits in seq order without
 * holes: a commit that arrives ahead of what this node emitted (another node's commit not
 * yet seen) first reads the missing rows. Sockets still catching up get the frames
 * buffered instead, so each frame reaches each socket once, in order ([RT1]).
 */
export class RoomHub {
  private emitted = new Map<string, number>();
  /** When each workspace last had a commit fanned out here (ms since epoch). */
  private lastAt = new Map<string, number>();
  private chains = new Map<string, Promise<void>>();
  private catching = new Map<string, Set<CatchUp>>();
  /**
   * Sockets that joined a room with a catch-up read that may be ahead of what this hub has
   * emitted yet (the read saw a commit whose fan-out was still on its way): space → socket →
   * last seq sent. They get only what is newer, so nothing reaches a socket twice.
   */
  private ahead = new Map<string, Map<string, number>>();

  constructor(
    private db: Db,
    private sink: RoomSink,
  ) {}

  beginCatchUp(spaceId: string): CatchUp {
    const c: CatchUp = { spaceId, buffer: [] };
    let set = this.catching.get(spaceId);
    if (!set) this.catching.set(spaceId, (set = new Set()));
    set.add(c);
    return c;
  }

  endCatchUp(c: CatchUp): void {
    const set = this.catching.get(c.spaceId);
    set?.delete(c);
    if (set && set.size === 0) this.catching.delete(c.spaceId);
  }

  /** A socket finished its catch-up at `lastSent` and is now in the room. */
  joined(spaceId: string, socketId: string, lastSent: number): void {
    let m = this.ahead.get(spaceId);
    if (!m) this.ahead.set(spaceId, (m = new Map()));
    m.set(socketId, lastSent);
  }

  left(spaceId: string, socketId: string): void {
    const m = this.ahead.get(spaceId);
    m?.delete(socketId);
    if (m && m.size === 0) this.ahead.delete(spaceId);
  }

  /** This node's own commit. */
  committed(workspaceId: string, batch: Committed[]): void {
    if (!batch.length) return;
    this.enqueue(workspaceId, batch[0].event.seq - 1, batch[batch.length - 1].event.seq, async () =>
      // The writer's own string, serialized once, is what every socket of every room gets.
      batch.map((c) => ({
        seq: c.event.seq,
        spaceId: c.event.space_id ?? null,
        type: c.event.type,
        json: frameJson(c.body, c.prevSeq),
      })),
    );
  }

  /** Workspaces this hub has fanned out for: what a node re-reads after its LISTEN reconnects. */
  workspaces(): string[] {
    return [...this.emitted.keys()];
  }

  /**
   * Forget the last seq of workspaces with no commit since `cutoff` and no socket on this
   * node ([SCL1]). Nothing was waiting on it: the next commit is fanned out from
   * its own `from` on, and a socket that joins later catches up from the store. A workspace
   * with a socket keeps it — a missed NOTIFY is repaired from it, and a LISTEN that
   * reconnected re-reads the heads of the workspaces kept.
   */
  release(cutoff: number): void {
    for (const [ws, at] of this.lastAt) {
      if (at >= cutoff || this.chains.has(ws) || this.sink.inUse?.(ws) !== false) continue;
      this.lastAt.delete(ws);
      this.emitted.delete(ws);
    }
  }

  held() {
    return { hubHeads: this.emitted.size, hubChains: this.chains.size, hubCatchUps: this.catching.size };
  }

  /**
   * Another node committed (from, to] in a workspace. With no socket of the workspace here
   * and no long-poll on one of its asks, nobody on this node is told, so its rows are not read: N nodes do not each read every
   * commit of every workspace. A socket that comes catches up from the store.
   */
  remoteCommitted(workspaceId: string, from: number, to: number): void {
    if (this.sink.inUse?.(workspaceId) === false && !this.chains.has(workspaceId)) {
      this.emitted.delete(workspaceId);
      this.lastAt.delete(workspaceId);
      return;
    }
    this.enqueue(workspaceId, from, to, async () => []);
  }

  private enqueue(workspaceId: string, from: number, to: number, local: () => Promise<OutFrame[]>) {
    this.lastAt.delete(workspaceId); // set again last: least recently committed first
    this.lastAt.set(workspaceId, Date.now());
    const prev = this.chains.get(workspaceId) ?? Promise.resolve();
    const next = prev
      .then(async () => {
        const last = this.emitted.get(workspaceId) ?? from;
        if (to <= last) return;
        let items = (await local()).filter((i) => i.seq > last);
        const firstLocal = items.length ? items[0].seq : to + 1;
        if (firstLocal > last + 1) {
          // A hole before this commit (or a remote commit): read it from the store.
          items = [...(await workspaceFramesBetween(this.db, workspaceId, last, firstLocal - 1)), ...items];
        }
        this.emit(items);
        this.emitted.set(workspaceId, Math.max(last, to, items.length ? items[items.length - 1].seq : 0));
      })
      .catch((e) => log.warn({ err: e, workspaceId }, "fan-out read failed; the next commit or rejoin repairs it"));
    this.chains.set(workspaceId, next);
    void next.then(() => {
      if (this.chains.get(workspaceId) === next) this.chains.delete(workspaceId);
    });
  }

  private emit(items: OutFrame[]) {
    const bySpace = new Map<string, OutFrame[]>();
    const all: OutFrame[] = [];
    for (const f of items) {
      if (!f.spaceId) continue;
      let list = bySpace.get(f.spaceId);
      if (!list) bySpace.set(f.spaceId, (list = []));
      list.push(f);
      all.push(f);
    }
    if (all.length) this.sink.emitted?.(all);
    for (const [spaceId, frames] of bySpace) {
      for (const c of this.catching.get(spaceId) ?? []) c.buffer.push(...frames);
      const except: string[] = [];
      const ahead = this.ahead.get(spaceId);
      for (const [socketId, last] of ahead ?? []) {
        if (last < frames[0].seq) {
          ahead!.delete(socketId); // in step with the room from here on
          continue;
        }
        except.push(socketId);
        const rest = frames.filter((f) => f.seq > last);
        if (rest.length) {
          this.sink.emitToSocket(socketId, rest);
          ahead!.delete(socketId);
        }
      }
      if (ahead && ahead.size === 0) this.ahead.delete(spaceId);
      this.sink.emitToRoom(spaceId, frames, except);
    }
  }
}
