import { describe, expect, it } from "vitest";
import { RateLimiter } from "../lib/server/ingest/rate-limit";
import { AttemptLimiter } from "../lib/server/attempts";

describe("rate limiter maps stay bounded under many addresses", () => {
  it("a million failed attempts from a million addresses keep at most maxKeys buckets, and the newest addresses are still limited", () => {
    let now = 0;
    const limiter = new RateLimiter(1, 2, () => now, 1000);
    // The largest size seen after any take, asserted once: a million expect calls cost ~15 s of CPU.
    let largest = 0;
    for (let i = 0; i < 1_000_000; i++) {
      now += 0.001; // a microsecond apart: no bucket refills meanwhile
      limiter.take(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 2);
      largest = Math.max(largest, limiter.size);
    }
    expect(largest).toBeLessThanOrEqual(1000);
    expect(largest).toBe(1000); // it did fill up: the bound was reached, not merely unapproached
    // The last address spent its burst and is refused.
    expect(limiter.take(`10.${999_999 >> 16}.${(999_999 >> 8) & 255}.${999_999 & 255}`, 1).ok).toBe(false);
  });

  it("a bucket that filled up again is forgotten: peeks never add one", () => {
    let now = 0;
    const limiter = new RateLimiter(1, 2, () => now);
    for (let i = 0; i < 10_000; i++) limiter.peek(`a${i}`);
    expect(limiter.size).toBe(0);
    limiter.take("x", 1);
    expect(limiter.size).toBe(1);
    now += 5000; // refilled
    expect(limiter.peek("x").ok).toBe(true);
    expect(limiter.size).toBe(0);
  });

  it("[OPS1] sign-in attempts: an address that spent its attempts is asked to wait at each further failure while others come and go; a minute later it may fail again", () => {
    let now = 0;
    const attempts = new AttemptLimiter(3, () => now);
    expect([1, 2, 3].map(() => attempts.failed("203.0.113.9", "bearer token"))).toEqual([null, null, null]);
    for (let i = 0; i < 10_000; i++) attempts.failed(`198.51.${i >> 8}.${i & 255}`, "bearer token");
    expect(attempts.failed("203.0.113.9", "bearer token")).toBe(20); // a token back every 20 s
    now += 20_000;
    expect(attempts.failed("203.0.113.9", "bearer token")).toBeNull();
    expect(attempts.failed("203.0.113.9", "bearer token")).toBe(20);
    expect(new AttemptLimiter(0).failed("203.0.113.9", "bearer token")).toBeNull(); // 0 = no limit
  });
});
