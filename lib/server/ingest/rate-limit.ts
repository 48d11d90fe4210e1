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
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= n) {
      b.tokens -= n;
      return { ok: true };
    }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((n - b.tokens) / this.rate)) };
  }
}
