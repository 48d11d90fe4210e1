import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientFields } from "../lib/server/ingest/serialize";

/** What stamping and hashing used before: the object rest pattern. */
function restCopy(e: Record<string, unknown>): Record<string, unknown> {
  const { ts: _ts, seq: _seq, actor: _actor, ...rest } = e;
  return rest;
}

describe("[ENV4] [ENV9] the client's fields of an event, copied for stamping and hashing", () => {
  it("[ENV4] are the rest pattern's fields, values and order, server-owned fields and an own __proto__ included", () => {
    const key = fc.oneof(fc.string(), fc.constantFrom("__proto__", "ts", "seq", "actor", "v", "type", "10", "2"));
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue(), { maxKeys: 12 }), (raw) => {
        const e = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>; // own __proto__ as JSON.parse makes it
        const copy = clientFields(e);
        expect(Object.keys(copy)).toEqual(Object.keys(restCopy(e)));
        expect(JSON.stringify(copy)).toBe(JSON.stringify(restCopy(e)));
        expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      }),
      { numRuns: 500 },
    );
  });
});
