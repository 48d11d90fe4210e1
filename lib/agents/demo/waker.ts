/** The demo worker's waits: a step's tick or an idle pause, each cut short by a command or a stop. */
export class Waker {
  private wakeUp: (() => void) | null = null;

  /** Wait `ms`, or less when woken. */
  sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        if (this.wakeUp === done) this.wakeUp = null;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** Wait (paused) until woken. */
  idle() {
    return new Promise<void>((resolve) => (this.wakeUp = resolve));
  }

  wake() {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }
}
