/**
 * How hard to retry a request that got no answer, a 5xx, a 429 or a 503.
 * `attempts` counts every try (the first included); waits grow as `baseMs · 2^n` capped
 * at `maxMs`, each drawn uniformly from [0, that] ("full jitter"), and come on top of the
 * server's `Retry-After` when it sent one; no wait that would end past `totalMs` from the
 * first try is started (the last error is thrown instead).
 */
export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
  /** The whole budget, first try to last wait (default 60 s). */
  totalMs?: number;
}

export const DEFAULT_RETRY: Required<RetryPolicy> = { attempts: 8, baseMs: 250, maxMs: 10_000, totalMs: 60_000 };

/** The policy with defaults filled in and nonsense clamped (at least one attempt). */
export function retryPolicy(p: Partial<RetryPolicy> = {}): Required<RetryPolicy> {
  const merged = { ...DEFAULT_RETRY, ...p };
  return {
    attempts: Math.max(1, Math.floor(merged.attempts)),
    baseMs: Math.max(0, merged.baseMs),
    maxMs: Math.max(0, merged.maxMs),
    totalMs: Math.max(0, merged.totalMs),
  };
}

/** The wait before retry number `retry` (0 = the first retry): full jitter over the capped exponential. */
export function backoffMs(retry: number, p: Required<RetryPolicy>, random: () => number = Math.random): number {
  const ceiling = Math.min(p.maxMs, p.baseMs * 2 ** Math.min(retry, 30));
  return Math.floor(random() * ceiling);
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Resolve after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
