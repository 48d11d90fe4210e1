/**
 * Token buckets per key (a credential, a client address): `rate` events a second, bursts up
 * to `burst`. The map is bounded: a full bucket is the same as none, so only buckets with
 * something taken are kept, and past `maxKeys` the full ones are swept, then the least
 * recently touched dropped — many addresses cannot grow it without end.
 */
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private rate: number,
    private burst: number,
    private now: () => number = () => Date.now(),
    readonly maxKeys = 50_000,
  ) {}

  /** Buckets held now (tests). */
  get size(): number {
    return this.buckets.size;
  }

  /** Forget every bucket that has filled up again: it is the same as none ([SCL1]). */
  release(): void {
    const t = this.now();
    for (const [k, x] of this.buckets)
      if (x.tokens + ((t - x.at) / 1000) * this.rate >= this.burst) this.buckets.delete(k);
  }

  /** Take `n` tokens; answer the seconds to wait when there are not enough. */
  take(key: string, n: number): { ok: true } | { ok: false; retryAfter: number } {
    if (this.rate <= 0) return { ok: true };
    const b = this.refill(key);
    if (b.tokens >= n) {
      b.tokens -= n;
      this.keep(key, b);
      return { ok: true };
    }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((n - b.tokens) / this.rate)) };
  }

  /** Whether one token is there, without taking it. */
  peek(key: string): { ok: true } | { ok: false; retryAfter: number } {
    if (this.rate <= 0) return { ok: true };
    const b = this.refill(key);
    return b.tokens >= 1 ? { ok: true } : { ok: false, retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / this.rate)) };
  }

  private refill(key: string) {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    if (b.tokens >= this.burst) this.buckets.delete(key); // full again: nothing to remember
    return b;
  }

  /** Remember a bucket with something taken, most recently touched last; keep the map bounded. */
  private keep(key: string, b: { tokens: number; at: number }) {
    this.buckets.delete(key);
    this.buckets.set(key, b);
    if (this.buckets.size <= this.maxKeys) return;
    this.release();
    // Down to 90%: the next sweep is ~maxKeys/10 new keys away, not at the very next one.
    for (const k of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys * 0.9) break;
      this.buckets.delete(k);
    }
  }
}
