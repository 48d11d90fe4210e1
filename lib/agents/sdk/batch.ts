import { LIMITS } from "../../core/protocol/limits";
import type { EventInput, PreparedEvent, StoredEvent } from "./types";

/** What a batch needs from its client: envelopes filled, and one atomic request sent. */
export interface BatchSink {
  prepare(events: EventInput[]): Promise<PreparedEvent[]>;
  sendAtomic(events: PreparedEvent[]): Promise<StoredEvent[]>;
}

/** Bytes one request may hold: the server's limit less room for `{"events":[…]}`. */
const MAX_BODY = LIMITS.bodyBytes - 1024;

/** Split events into requests of at most `LIMITS.batchEvents` events and about 1 MiB, in order. */
export function chunk(
  events: PreparedEvent[],
  maxEvents: number = LIMITS.batchEvents,
  maxBytes = MAX_BODY,
): PreparedEvent[][] {
  const out: PreparedEvent[][] = [];
  let cur: PreparedEvent[] = [];
  let bytes = 0;
  for (const e of events) {
    const size = Buffer.byteLength(JSON.stringify(e)) + 1;
    if (cur.length && (cur.length >= maxEvents || bytes + size > maxBytes)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(e);
    bytes += size;
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Events queued locally and sent together: `flush()` posts them as one all-or-nothing
 * request (`{"events": [...]}`), or — beyond 500 events or 1 MiB — as several, in order,
 * each all-or-nothing. Envelopes are filled at the first flush and kept: when a flush
 * fails, the events not stored stay queued with the same ids and keys, so flushing again
 * is a safe retry.
 */
export class Batch {
  private queue: (EventInput | PreparedEvent)[] = [];
  private prepared = 0;
  private flushing: Promise<StoredEvent[]> | null = null;

  constructor(private readonly sink: BatchSink) {}

  /** Queue an event (nothing is sent until `flush`). */
  add(event: EventInput): this {
    this.queue.push(event);
    return this;
  }

  /** Events queued and not yet stored. */
  get size(): number {
    return this.queue.length;
  }

  /** Send everything queued; answers the stored events in the order added. */
  flush(): Promise<StoredEvent[]> {
    // One flush at a time, so events stay in order; a flush during a flush waits its turn.
    const run = async (): Promise<StoredEvent[]> => {
      if (this.prepared < this.queue.length) {
        const fresh = await this.sink.prepare(this.queue.slice(this.prepared) as EventInput[]);
        this.queue.splice(this.prepared, fresh.length, ...fresh);
        this.prepared = this.queue.length;
      }
      const stored: StoredEvent[] = [];
      for (const part of chunk(this.queue.slice(0, this.prepared) as PreparedEvent[])) {
        stored.push(...(await this.sink.sendAtomic(part)));
        this.queue.splice(0, part.length);
        this.prepared -= part.length;
      }
      return stored;
    };
    const next = (this.flushing ?? Promise.resolve([] as StoredEvent[])).catch(() => []).then(run);
    this.flushing = next;
    return next;
  }
}
