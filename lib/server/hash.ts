import crypto, { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth: equal values give equal strings. Written
 * straight to a string (no sorted copy of the value): the same bytes as
 * `JSON.stringify` of a key-sorted copy, which is what stored hashes were made of.
 */
export function canonicalJson(value: unknown): string {
  return write(value) ?? "undefined";
}

/** One value's canonical JSON; undefined where JSON.stringify would leave the value out. */
function write(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) out += (i ? "," : "") + (write(value[i]) ?? "null");
        return out + "]";
      }
      const rec = value as Record<string, unknown>;
      let out = "{";
      for (const k of sortedKeys(rec)) {
        const v = write(rec[k]);
        if (v !== undefined) out += (out.length > 1 ? "," : "") + JSON.stringify(k) + ":" + v;
      }
      return out + "}";
    }
    default:
      return undefined; // undefined, functions, symbols: left out, as JSON.stringify does
  }
}

/**
 * Keys sorted, then ordered as an object built in that order enumerates them: integer
 * keys ("2", "10") first in numeric order, the rest as sorted. That is the order the
 * sorted-copy JSON had, and stored hashes depend on it.
 */
function sortedKeys(rec: Record<string, unknown>): string[] {
  const keys = Object.keys(rec).sort();
  const index = keys.filter(isArrayIndex);
  if (!index.length) return keys;
  return [...index.sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isArrayIndex(k))];
}

const isArrayIndex = (k: string) => k.charCodeAt(0) <= 57 && /^(0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;

// One-shot hashing (Node ≥ 20.12) is ~4× cheaper than a Hash object for an event's few
// hundred bytes; the ingest path hashes every event. Older Node builds the object.
const oneShot = typeof crypto.hash === "function";

export function sha256(text: string): string {
  return oneShot ? crypto.hash("sha256", text, "hex") : createHash("sha256").update(text).digest("hex");
}
