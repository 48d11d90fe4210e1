/** Token buckets per credential: `rate` events a second, bursts up to `burst`. */
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private rate: number,
    private burst: number,
    private now: () => number = () => Date.now(),
  ) {}

  /** Take `n` tokens; answer the seconds to wait when there are not enough. */
  take(key: string, n: number): { ok: true } | { ok: false; retryAfter: number } {
    if (this.rate <= 0) return { ok: true };
    const b = this.refill(key);
    if (b.tokens >= n) {
      b.tokens -= n;
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
    this.buckets.set(key, b);
    return b;
  }
}
