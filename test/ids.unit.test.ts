import { describe, expect, it } from "vitest";
import { ID_PREFIX, isId, newId } from "../lib/protocol";

describe("ids: a prefix + a ULID (docs/PROTOCOL.md, ids)", () => {
  it("new ids are valid for their kind, distinct, and their random part uses all 32 characters about evenly", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("event"));
    expect(ids.every((id) => isId("event", id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // The random part (the last 16 characters) is drawn from a pooled CSPRNG: 320,000 draws,
    // 10,000 expected per character; a fair source stays well within ±10%.
    const counts = new Map<string, number>();
    for (const id of ids)
      for (const ch of id.slice(ID_PREFIX.event.length + 10)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(32);
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(1_000);
  });
});
