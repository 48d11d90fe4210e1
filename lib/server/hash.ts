import crypto, { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth: equal values give equal strings — the bytes
 * stored hashes were made of (`JSON.stringify` of a key-sorted copy). Built as that copy
 * and one native `JSON.stringify`: string-building it key by key allocated ~4.2 KB an event
 * in cons strings against ~2.8 KB, and took longer (docs/PERFORMANCE.md). Integer keys need
 * no care: an object enumerates them first, in numeric order, as the copy always did.
 */
export function canonicalJson(value: unknown): string {
  return writable(value) ? (JSON.stringify(sortedCopy(value)) ?? "undefined") : "undefined";
}

/** What JSON.stringify writes: not undefined, functions, symbols — nor bigints, which it throws on. */
function writable(v: unknown): boolean {
  const t = typeof v;
  return v !== undefined && t !== "function" && t !== "symbol" && t !== "bigint";
}

/**
 * Plain objects with sorted keys and plain arrays all the way down, holding only what
 * JSON writes: so `JSON.stringify` meets no `toJSON` and no value it would throw on.
 */
function sortedCopy(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = writable(value[i]) ? sortedCopy(value[i]) : null;
    return out;
  }
  const rec = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of sortKeys(Object.keys(rec))) {
    const v = rec[k];
    if (!writable(v)) continue;
    // An own "__proto__" (JSON.parse makes them) is a field, not the copy's prototype.
    if (k === "__proto__")
      Object.defineProperty(out, k, { value: sortedCopy(v), enumerable: true, writable: true, configurable: true });
    else out[k] = sortedCopy(v);
  }
  return out;
}

/**
 * Keys in `Array.prototype.sort`'s order (UTF-16 code units; keys are distinct, so stability
 * is moot). A short list is insertion-sorted in place: V8's sort allocates ~0.9 KB of work
 * space for an event's ten keys, and every event is hashed.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 24) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > k; j--) keys[j + 1] = keys[j];
    keys[j + 1] = k;
  }
  return keys;
}

// One-shot hashing (Node ≥ 20.12) is ~4× cheaper than a Hash object for an event's few
// hundred bytes; the ingest path hashes every event. Older Node builds the object.
const oneShot = typeof crypto.hash === "function";

export function sha256(text: string): string {
  return oneShot ? crypto.hash("sha256", text, "hex") : createHash("sha256").update(text).digest("hex");
}
