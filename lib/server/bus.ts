import { log } from "./log";

/**
 * What happens next, by name: a publisher tells each named subscriber in the order they
 * subscribed; one that throws is logged and the others still hear. A subscriber must not
 * block: what it starts (an emit, a scheduled round, a task start) runs on its own and
 * reports its own errors. The names are a closed set, so who listens is read off one type.
 */
export class NamedBus<Name extends string, Args extends unknown[]> {
  private subscribers = new Map<Name, (...args: Args) => void>();

  /** `what` names the bus in its refusals and logs ("commit", "access"). */
  constructor(private readonly what: string) {}

  /** Hear every message from now on, until the answer is called. One handler per name. */
  subscribe(name: Name, handler: (...args: Args) => void): () => void {
    if (this.subscribers.has(name)) throw new Error(`the ${this.what} bus already has a ${name} subscriber`);
    this.subscribers.set(name, handler);
    return () => {
      if (this.subscribers.get(name) === handler) this.subscribers.delete(name);
    };
  }

  publish(...args: Args): void {
    for (const [name, handler] of this.subscribers) {
      try {
        handler(...args);
      } catch (e) {
        log.error({ err: e, subscriber: name }, `a ${this.what} subscriber failed`);
      }
    }
  }
}
