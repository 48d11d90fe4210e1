import { RateLimiter } from "./ingest/rate-limit";
import { log } from "./log";

/**
 * Failed sign-in attempts per client address ([OPS1]): a bad bearer token, session cookie,
 * login link, invite or share link. Every credential is looked up first, whatever its
 * address has done: a valid one is let in at once, so a stranger guessing from behind the
 * same proxy or office NAT never locks the people there out. Each failure takes a token from
 * the address's bucket (`perMinute` a minute, bursts of as many); once it is empty, further
 * failures are answered 429 with `Retry-After` instead of 401 — a client that keeps failing
 * is told to back off, and the address is logged once a minute. `perMinute` 0 turns it off.
 */
export class AttemptLimiter {
  private buckets: RateLimiter;
  /** One log line per address a minute, however fast it fails. */
  private told: RateLimiter;
  constructor(
    private perMinute: number,
    now: () => number = () => Date.now(),
  ) {
    this.buckets = new RateLimiter(perMinute / 60, perMinute, now);
    this.told = new RateLimiter(1 / 60, 1, now);
  }

  /** Addresses whose attempts filled up again are forgotten ([SCL1]). */
  release(): void {
    this.buckets.release();
    this.told.release();
  }

  held() {
    return { attemptBuckets: this.buckets.size };
  }

  /**
   * A failed attempt from this address (`what` failed, for the log): null to answer it as
   * any failure, or the seconds to ask it to wait (429) when its attempts are spent.
   */
  failed(address: string | undefined, what: string): number | null {
    if (this.perMinute <= 0) return null;
    const k = address ?? "unknown";
    const r = this.buckets.take(k, 1);
    if (r.ok) return null;
    if (this.told.take(k, 1).ok)
      log.warn({ address: k, what, perMinute: this.perMinute }, "too many failed sign-in attempts from this address");
    return r.retryAfter;
  }
}
