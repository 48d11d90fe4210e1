import { utf8Length } from "./fields";

/**
 * Byte-aware cuts. Every limit of `limits.ts` is UTF-8 bytes, so text is never cut with
 * `slice` on UTF-16 units: a string of N characters may take up to 4N bytes, and a cut
 * between the two halves of a surrogate pair leaves a lone surrogate the wire turns into
 * U+FFFD. These cut on code point boundaries by bytes.
 */

/** Bytes one UTF-16 unit (or pair, at `i`) takes, and how many units it spans. */
function step(s: string, i: number): [bytes: number, units: number] {
  const c = s.charCodeAt(i);
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return [4, 2];
  }
  return [3, 1]; // the rest of the BMP, and a lone surrogate (encoded as U+FFFD)
}

/** The longest prefix of `s` that takes at most `maxBytes` bytes as UTF-8, never splitting a code point. */
export function utf8Prefix(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes) return s; // no UTF-16 unit takes more than 3 bytes
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const [b, units] = step(s, i);
    if (bytes + b > maxBytes) break;
    bytes += b;
    i += units;
  }
  return s.slice(0, i);
}

/**
 * `s` whole when it fits in `maxBytes` UTF-8 bytes; else its longest prefix that fits
 * with `mark` (an ellipsis by default) after it. What every producer of a bounded field
 * (a goal, a title, a message) cuts with before it posts.
 */
export function clipUtf8(s: string, maxBytes: number, mark = "…"): string {
  if (s.length * 3 <= maxBytes || utf8Length(s) <= maxBytes) return s;
  const room = maxBytes - utf8Length(mark);
  return room <= 0 ? utf8Prefix(mark, maxBytes) : utf8Prefix(s, room) + mark;
}

/** The longest suffix of `s` that takes at most `maxBytes` bytes as UTF-8, never splitting a code point. */
function utf8Suffix(s: string, maxBytes: number): string {
  let bytes = 0;
  let i = s.length;
  while (i > 0) {
    const low = s.charCodeAt(i - 1);
    const pair = i > 1 && low >= 0xdc00 && low <= 0xdfff && (s.charCodeAt(i - 2) & 0xfc00) === 0xd800;
    const at = pair ? i - 2 : i - 1;
    const [b] = step(s, at);
    if (bytes + b > maxBytes) break;
    bytes += b;
    i = at;
  }
  return s.slice(i);
}

/**
 * `s` whole when it fits in `maxBytes` UTF-8 bytes; else `mark` and its longest tail that
 * fits: what a producer keeps of an output, whose end says most (the error, the exit).
 */
export function clipUtf8Tail(s: string, maxBytes: number, mark = "…"): string {
  if (s.length * 3 <= maxBytes || utf8Length(s) <= maxBytes) return s;
  const room = maxBytes - utf8Length(mark);
  return room <= 0 ? utf8Prefix(mark, maxBytes) : mark + utf8Suffix(s, room);
}
