/**
 * Long-polls on asks (`GET /api/v1/runs/:run/asks/:ask?wait=`): a request waits here until
 * its ask moves (an answer, a close, the harness's word on it) or its wait runs out. Told by
 * the fan-out of every commit this node sees, its own and other nodes' alike.
 */
export class AskWaits {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves when `askId` moves, or after `ms`; never rejects. Register before reading, so no move is missed. */
  wait(askId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(askId);
      if (!set) this.waiting.set(askId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        const s = this.waiting.get(askId);
        s?.delete(done);
        if (s && s.size === 0) this.waiting.delete(askId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /** An event about `askId` was committed: wake whoever waits on it. */
  moved(askId: string): void {
    for (const done of [...(this.waiting.get(askId) ?? [])]) done();
  }
}
