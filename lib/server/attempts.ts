import { RateLimiter } from "./ingest/rate-limit";

/**
 * Failed sign-in attempts per client address: a bad bearer token, session cookie, login
 * link or invite. Each failure takes a token from the address's bucket (`perMinute` a
 * minute, bursts of as many); an empty bucket refuses further attempts with 429 and
 * `Retry-After` before the credential is even looked at, so guessing is slow. Successful
 * sign-ins cost nothing. `perMinute` 0 turns it off.
 */
export class AttemptLimiter {
  private buckets: RateLimiter;
  constructor(private perMinute: number) {
    this.buckets = new RateLimiter(perMinute / 60, perMinute);
  }

  /** Seconds to wait when this address is out of attempts; null when it may try. */
  blocked(address: string | undefined): number | null {
    if (this.perMinute <= 0) return null;
    const r = this.buckets.peek(key(address));
    return r.ok ? null : r.retryAfter;
  }

  /** A failed attempt from this address. */
  failed(address: string | undefined): void {
    if (this.perMinute > 0) this.buckets.take(key(address), 1);
  }
}

const key = (address: string | undefined) => (address ?? "unknown").replace(/^::ffff:/, "");
