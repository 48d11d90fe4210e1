import type { Db } from "@/db/client";
import { workspaceHeads } from "@/lib/server/queries/workspace";
import type { RoomHub } from "./hub";

/**
 * Commits this node never heard of, read anyway ([SCL4]). Another node's commit reaches this
 * one by a notice sent after the commit, so a node that dies in between (or a notice statement
 * that fails) leaves it unheard; so does a notice sent while this node's LISTEN connection was
 * down. One read of seq heads repairs both: for each workspace the hub has fanned out for, a
 * head past what it fanned out is read and fanned out, in order and once.
 *
 * A workspace in use here with nothing fanned out yet (its rooms joined, no commit since) has
 * no such mark: a room's join gives its own (`noted`: the head its catch-up read through), and
 * a workspace in use with none (a harness's socket) is marked by its head at the first `sweep`
 * that sees it. The next sweep reads what a mark's head moved past. Only workspaces in use are
 * kept, and only until the next sweep.
 */
export class HeadsSweep {
  private unmarked = new Map<string, number>();

  constructor(
    private db: Db,
    private hub: Pick<RoomHub, "workspaces" | "remoteCommitted">,
    /** Workspaces with a socket on this node. */
    private inUse: () => Iterable<string>,
  ) {}

  /** Read the heads of the workspaces the hub has fanned out for (after LISTEN reconnected: no marks kept). */
  async catchUp(): Promise<void> {
    const known = this.hub.workspaces();
    if (!known.length) return;
    for (const r of await workspaceHeads(this.db, known)) this.hub.remoteCommitted(r.id, r.head, r.head);
  }

  /**
   * A room of `workspaceId` joined here, its sockets holding everything through `head`: the
   * mark the next sweep compares with, if the workspace has none yet (the oldest stays).
   */
  noted(workspaceId: string, head: number): void {
    if (!this.unmarked.has(workspaceId)) this.unmarked.set(workspaceId, head);
  }

  /** The timer's round: `catchUp`, and the workspaces in use with nothing fanned out yet. */
  async sweep(): Promise<void> {
    const known = new Set(this.hub.workspaces());
    const inUseUnknown = [...new Set(this.inUse())].filter((ws) => !known.has(ws));
    const ids = [...known, ...inUseUnknown];
    const prev = this.unmarked;
    this.unmarked = new Map(); // joins while the heads are read note here
    if (!ids.length) return;
    const rows = await workspaceHeads(this.db, ids);
    const marked = new Set(this.hub.workspaces()); // a notice heard meanwhile marks its workspace
    const next = new Map<string, number>();
    for (const r of rows) {
      const was = prev.get(r.id);
      if (marked.has(r.id)) this.hub.remoteCommitted(r.id, r.head, r.head);
      // Still nothing fanned out here since the mark, yet the head moved: unheard commits.
      else if (was !== undefined && r.head > was) this.hub.remoteCommitted(r.id, was, r.head);
      else next.set(r.id, r.head);
    }
    for (const [ws, head] of this.unmarked)
      if (!marked.has(ws) && head < (next.get(ws) ?? Infinity)) next.set(ws, head);
    this.unmarked = next;
  }

  /** What the sweep keeps between rounds (counted with what a node holds, [SCL1]). */
  held() {
    return { sweepMarks: this.unmarked.size };
  }
}
