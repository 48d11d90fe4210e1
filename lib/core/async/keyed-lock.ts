/**
 * Work under one key, one at a time in this process; different keys run side by side. Each
 * `run` starts when the last one given for its key has settled (failed or not), and answers
 * what its own work answers. A key is forgotten once nothing waits under it.
 */
export class KeyedLock {
  private tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = next.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
