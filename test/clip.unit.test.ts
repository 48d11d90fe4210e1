import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clipUtf8, clipUtf8Tail, utf8Prefix } from "@/lib/core/protocol/clip";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
// Strings of every width: ASCII, 2- and 3-byte BMP, astral pairs, and lone surrogates.
const anyText = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: fc.constantFrom("a", "é", "日", "😀", "\ud800", "\udc00"), maxLength: 300 }),
);
// No lone surrogate (String.prototype.isWellFormed, which this TypeScript lib does not type yet).
const wellFormed = (s: string) => !/\p{Cs}/u.test(s);
const limit = fc.integer({ min: 0, max: 1200 });

describe("[LIM1] text is cut on UTF-8 byte boundaries", () => {
  it("utf8Prefix: valid UTF-8, within the limit, a prefix of the input, the longest such", () => {
    fc.assert(
      fc.property(anyText, limit, (s, max) => {
        const p = utf8Prefix(s, max);
        expect(s.startsWith(p)).toBe(true);
        expect(bytes(p)).toBeLessThanOrEqual(max);
        // No half of a surrogate pair is left at the cut.
        const last = p.charCodeAt(p.length - 1);
        const next = s.charCodeAt(p.length);
        expect(last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff).toBe(false);
        // The longest: one more code point would not fit.
        if (p.length < s.length) {
          const cp = s.codePointAt(p.length)!;
          const more = s.slice(0, p.length + (cp > 0xffff ? 2 : 1));
          expect(bytes(more)).toBeGreaterThan(max);
        }
        // Well-formed input gives well-formed output: the cut makes no lone surrogate.
        if (wellFormed(s)) expect(wellFormed(p)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("clipUtf8: the input when it fits, else a prefix and the mark, within the limit", () => {
    fc.assert(
      fc.property(anyText, limit, (s, max) => {
        const c = clipUtf8(s, max);
        expect(bytes(c)).toBeLessThanOrEqual(max);
        if (bytes(s) <= max) expect(c).toBe(s);
        else if (max >= bytes("…")) {
          expect(c.endsWith("…")).toBe(true);
          expect(s.startsWith(c.slice(0, -1))).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("clipUtf8Tail: the input when it fits, else the mark and the longest suffix that fits, never half a pair", () => {
    const high = (c: number) => c >= 0xd800 && c <= 0xdbff;
    const low = (c: number) => c >= 0xdc00 && c <= 0xdfff;
    fc.assert(
      fc.property(anyText, limit, (s, max) => {
        const c = clipUtf8Tail(s, max);
        expect(bytes(c)).toBeLessThanOrEqual(max);
        if (bytes(s) <= max) expect(c).toBe(s);
        else if (max >= bytes("…")) {
          expect(c.startsWith("…")).toBe(true);
          const tail = c.slice(1);
          expect(s.endsWith(tail)).toBe(true);
          const at = s.length - tail.length;
          // No half of a surrogate pair is left at the cut.
          expect(low(s.charCodeAt(at)) && high(s.charCodeAt(at - 1))).toBe(false);
          // The longest: one more code point from the end would not fit.
          const width = at >= 2 && low(s.charCodeAt(at - 1)) && high(s.charCodeAt(at - 2)) ? 2 : 1;
          expect(bytes(s.slice(at - width)) + bytes("…")).toBeGreaterThan(max);
          if (wellFormed(s)) expect(wellFormed(c)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("3,000 Japanese characters (9,000 bytes) clip to a 4,000-byte goal", () => {
    const goal = clipUtf8("日".repeat(3000), 4000);
    expect(bytes(goal)).toBeLessThanOrEqual(4000);
    expect(goal).toBe("日".repeat(1332) + "…");
  });
});
