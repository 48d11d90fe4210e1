import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../lib/server/hash";

/** The definition stored hashes were made with: JSON.stringify of a copy with sorted keys. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined)
        Object.defineProperty(out, k, { value: sortedCopy(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

describe("[ENV3] [ENV9] the canonical JSON that body hashes are made of", () => {
  it("[ENV9] is byte for byte the sorted-copy JSON of any JSON value, __proto__ and integer keys, escapes and undefined fields included", () => {
    const key = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "__proto__",
        "constructor",
        "a",
        "b",
        "10",
        "2",
        "0",
        "01",
        "4294967294",
        "4294967295",
        "é",
        "\u2028",
      ),
    );
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(
        fc.string({ unit: "binary" }),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
      ),
      node: fc.oneof(
        { depthSize: "small" },
        tie("leaf"),
        fc.array(tie("node"), { maxLength: 5 }),
        fc.dictionary(key, tie("node"), { maxKeys: 6 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(JSON.stringify(sortedCopy(v)) ?? "undefined");
      }),
      { numRuns: 2000 },
    );
    // Parsed JSON (what the server hashes) has own __proto__ keys: they count like any other.
    const parsed = JSON.parse('{"b":1,"__proto__":{"x":[1,{"d":2,"c":3}]},"a":"\\u0000"}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":[1,{"c":3,"d":2}]},"a":"\\u0000","b":1}');
  });
});
