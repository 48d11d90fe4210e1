import { describe, expect, it } from "vitest";
import { ID_PREFIX, isId, newId } from "../lib/core/protocol";
import { parseEvent } from "../lib/core/protocol/parse";

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

describe("ids in events: read in any case, returned upper case (docs/PROTOCOL.md, ids)", () => {
  const lower = (kind: Parameters<typeof newId>[0]) => {
    const id = newId(kind);
    return id.slice(0, ID_PREFIX[kind].length) + id.slice(ID_PREFIX[kind].length).toLowerCase();
  };
  const upper = (id: string) => id.slice(0, id.indexOf("_") + 1) + id.slice(id.indexOf("_") + 1).toUpperCase();

  it("[ENV11] every id of a parsed event, the actor's included, comes out canonical, keys in the schema's order", () => {
    const raw = {
      text: "hi",
      actor: { id: lower("agent"), kind: "agent" },
      type: "message.posted",
      reply_to: lower("event"),
      v: 1,
      id: lower("event"),
      workspace_id: lower("workspace"),
      space_id: lower("space"),
      run_id: lower("run"),
      idempotency_key: "k",
    };
    const r = parseEvent(raw);
    if (!r.ok) throw new Error(JSON.stringify(r.problem));
    expect(JSON.stringify(r.event)).toBe(
      JSON.stringify({
        v: 1,
        id: upper(raw.id),
        workspace_id: upper(raw.workspace_id),
        space_id: upper(raw.space_id),
        run_id: upper(raw.run_id),
        idempotency_key: "k",
        actor: { kind: "agent", id: upper(raw.actor.id) },
        type: "message.posted",
        text: "hi",
        reply_to: upper(raw.reply_to),
      }),
    );
  });

  it("[ENV2] a malformed id or actor is refused with a pointer to it, and nothing is canonicalized into the answer", () => {
    const r = parseEvent(
      {
        v: 1,
        type: "message.posted",
        id: "evt_nope",
        workspace_id: newId("workspace"),
        space_id: newId("space"),
        idempotency_key: "k",
        actor: { kind: "harness", id: "x".repeat(65) },
        text: "hi",
      },
      "/events/3",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem.code).toBe("validation_failed");
    // The actor's id fails twice (over 64 characters, not a harness id): both say so.
    expect([...new Set(r.problem.errors?.map((e) => e.pointer))].sort()).toEqual([
      "/events/3/actor/id",
      "/events/3/id",
    ]);
  });
});
