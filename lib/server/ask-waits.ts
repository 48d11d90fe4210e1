/**
 * Long-polls on asks (`GET /api/v1/runs/:run/asks/:ask?wait=`): a request waits here until
 * its ask moves (an answer, a close, the harness's word on it) or its wait runs out. Told by
 * the fan-out of every commit this node sees, its own and other nodes' alike; a node with a
 * long-poll of a workspace follows that workspace's commits for it ([SCL3]).
 */
export class AskWaits {
  private readonly waiting = new Map<string, Set<() => void>>();
  /** Waiters per workspace: while a workspace has one, this node reads other nodes' commits to it. */
  private readonly workspaces = new Map<string, number>();

  /**
   * Resolves when `askId` (of `workspaceId`) moves, or after `ms`; never rejects. Register
   * before reading, so no move is missed: from here on this node follows the workspace.
   */
  wait(workspaceId: string, askId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(askId);
      if (!set) this.waiting.set(askId, (set = new Set()));
      this.workspaces.set(workspaceId, (this.workspaces.get(workspaceId) ?? 0) + 1);
      const done = () => {
        clearTimeout(timer);
        const s = this.waiting.get(askId);
        s?.delete(done);
        if (s && s.size === 0) this.waiting.delete(askId);
        const n = (this.workspaces.get(workspaceId) ?? 1) - 1;
        if (n > 0) this.workspaces.set(workspaceId, n);
        else this.workspaces.delete(workspaceId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /** Whether a long-poll on an ask of the workspace waits on this node. */
  holds(workspaceId: string): boolean {
    return this.workspaces.has(workspaceId);
  }

  /** An event about `askId` was committed: wake whoever waits on it. */
  moved(askId: string): void {
    for (const done of [...(this.waiting.get(askId) ?? [])]) done();
  }

  /**
   * What moved is unknown (this node's LISTEN was down: other nodes' commits meanwhile were
   * not heard): wake every waiter, so each reads its ask again; one still open is polled again.
   */
  wakeAll(): void {
    for (const set of [...this.waiting.values()]) for (const done of [...set]) done();
  }
}
