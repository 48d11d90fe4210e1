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
 * no such mark: its head at one `sweep` becomes the mark the next compares with, so a commit
 * left unheard after the first sweep that saw the workspace in use is read by the next one.
 * Only workspaces in use are kept, and only until the next sweep.
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

  /** The timer's round: `catchUp`, and the workspaces in use with nothing fanned out yet. */
  async sweep(): Promise<void> {
    const known = new Set(this.hub.workspaces());
    const unmarked = [...new Set(this.inUse())].filter((ws) => !known.has(ws));
    const ids = [...known, ...unmarked];
    if (!ids.length) {
      this.unmarked.clear();
      return;
    }
    const rows = await workspaceHeads(this.db, ids);
    const marked = new Set(this.hub.workspaces()); // a notice heard meanwhile marks its workspace
    const next = new Map<string, number>();
    for (const r of rows) {
      const was = this.unmarked.get(r.id);
      if (marked.has(r.id)) this.hub.remoteCommitted(r.id, r.head, r.head);
      // Still nothing fanned out here since the last sweep, yet the head moved: unheard commits.
      else if (was !== undefined && r.head > was) this.hub.remoteCommitted(r.id, was, r.head);
      else next.set(r.id, r.head);
    }
    this.unmarked = next;
  }

  /** What the sweep keeps between rounds (counted with what a node holds, [SCL1]). */
  held() {
    return { sweepMarks: this.unmarked.size };
  }
}
