import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Ask, StoredEvent } from "../lib/core/protocol";
import { askEnd, askRollup, askTally, quantile, type RolledAsk } from "../lib/core/review/asks";
import { askWords, searchQuery } from "../lib/core/review/search-text";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();

/** An ask as a rollup reads it: answered after `wait` ms by `person` (deny when `deny`), or closed for `closed`. */
function rolled(o: { wait?: number; person?: string; deny?: boolean; closed?: string; agent?: string }): RolledAsk {
  const answer =
    o.wait === undefined
      ? null
      : {
          person_id: o.person ?? "usr_a",
          at: iso(o.wait),
          seq: 2,
          decision: o.deny ? ("deny" as const) : ("allow" as const),
          option_id: null,
          text: null,
          note: null,
          scope: null,
        };
  return {
    state: answer ? "applied" : o.closed ? "closed" : "asked",
    answer,
    closed_reason: (o.closed ?? null) as Ask["closed_reason"],
    created_at: iso(0),
    agent: o.agent ?? null,
  };
}

describe("[ASKR6] median and p90 of the time to answer", () => {
  it("[ASKR6] known sets: the median and p90 as PostgreSQL's percentile_cont gives them", () => {
    expect(quantile([], 0.5)).toBeNull();
    expect(quantile([7], 0.9)).toBe(7);
    expect(quantile([1, 2, 3], 0.5)).toBe(2);
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBeCloseTo(9.1);
    expect(quantile([10, 20], 0.9)).toBe(19);
    const t = askTally([1000, 3000, 2000, 60_000].map((wait) => rolled({ wait })));
    expect(t).toMatchObject({ count: 4, answered: 4, p50_ms: 2500, p90_ms: 42_900 });
  });

  it("[ASKR6] any set: the median and p90 lie between the least and greatest, p50 ≤ p90, neither moves with the order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 86_400_000 }), { minLength: 1, maxLength: 60 }), (values) => {
        const p50 = quantile(values, 0.5)!;
        const p90 = quantile(values, 0.9)!;
        const lo = Math.min(...values);
        const hi = Math.max(...values);
        expect(p50).toBeGreaterThanOrEqual(lo);
        expect(p90).toBeLessThanOrEqual(hi);
        expect(p50).toBeLessThanOrEqual(p90);
        expect(quantile([...values].reverse(), 0.5)).toBe(p50);
        // Half the values at most are below the median, half at most above.
        expect(values.filter((v) => v < p50).length).toBeLessThanOrEqual(values.length / 2);
        expect(values.filter((v) => v > p50).length).toBeLessThanOrEqual(values.length / 2);
      }),
    );
  });

  it("[ASKR6] per person and per agent: each group's count, answered, expired and share add up to the asks", () => {
    const asks = [
      rolled({ wait: 1000, person: "usr_a", agent: "claude" }),
      rolled({ wait: 3000, person: "usr_a", agent: "codex", deny: true }),
      rolled({ wait: 5000, person: "usr_b", agent: "claude" }),
      rolled({ closed: "expired", agent: "claude" }),
      rolled({ closed: "cancelled", agent: "codex" }),
    ];
    expect(askRollup(asks, "person")).toEqual([
      expect.objectContaining({ key: "usr_a", count: 2, answered: 2, denied: 1, p50_ms: 2000, p90_ms: 2800 }),
      expect.objectContaining({ key: null, count: 2, answered: 0, expired: 1, withdrawn: 1, p50_ms: null }),
      expect.objectContaining({ key: "usr_b", count: 1, p50_ms: 5000 }),
    ]);
    const agents = askRollup(asks, "agent");
    expect(agents.map((r) => [r.key, r.count, r.expired, r.expired_share])).toEqual([
      ["claude", 3, 1, 1 / 3],
      ["codex", 2, 0, 0],
    ]);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            wait: fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }),
            person: fc.constantFrom("usr_a", "usr_b"),
            closed: fc.constantFrom("expired", "cancelled", undefined),
            agent: fc.constantFrom("claude", "codex", undefined),
          }),
          { maxLength: 40 },
        ),
        (specs) => {
          const all = specs.map(rolled);
          for (const by of ["person", "agent"] as const) {
            const rows = askRollup(all, by);
            expect(rows.reduce((n, r) => n + r.count, 0)).toBe(all.length);
            for (const r of rows) {
              expect(r.answered + r.expired + r.withdrawn + r.waiting).toBe(r.count);
              expect(r.expired_share).toBe(r.expired / r.count);
            }
          }
        },
      ),
    );
  });

  it("[ASKR3] how an ask ended: a person's deny is denied, any other answer answered; closed unanswered is expired or withdrawn", () => {
    expect(askEnd(rolled({ wait: 1, deny: true }))).toBe("denied");
    expect(askEnd(rolled({ wait: 1 }))).toBe("answered");
    expect(askEnd(rolled({ closed: "expired" }))).toBe("expired");
    expect(askEnd(rolled({ closed: "answered_elsewhere" }))).toBe("withdrawn");
    expect(askEnd(rolled({}))).toBe("waiting");
  });
});

describe("[ASKR5] ask words and operators", () => {
  const asked = {
    type: "run.asked",
    kind: "permission",
    tool: "Bash",
    summary: "rm -rf build",
    command: "rm -rf build/",
  } as unknown as StoredEvent;

  it("[ASKR5] an ask adds its kind and the words of what it asked; a deny and an expiry add their own word", () => {
    const w = askWords(asked);
    expect(w).toEqual(
      expect.arrayContaining(["ask:permission", "asked:bash", "asked:rm", "asked:rm~rf", "asked:build"]),
    );
    expect(askWords({ type: "run.answered", decision: "deny" } as unknown as StoredEvent)).toEqual(["denied:ask"]);
    expect(askWords({ type: "run.answered", decision: "allow" } as unknown as StoredEvent)).toEqual([]);
    expect(askWords({ type: "run.ask_closed", reason: "expired" } as unknown as StoredEvent)).toEqual(["expired:ask"]);
    expect(askWords({ type: "run.ask_closed", reason: "cancelled" } as unknown as StoredEvent)).toEqual([]);
  });

  it("[ASKR5] asked:, ask:, denied: and expired: become exact lexemes", () => {
    expect(searchQuery('asked:"rm -rf"')).toBe("'asked:rm' & 'asked:rf' & 'asked:rm~rf'");
    expect(searchQuery("ask:Permission denied:ask")).toBe("'ask:permission' & 'denied:ask'");
    expect(searchQuery("deploy expired:ask")).toBe("'expired:ask' & 'deploy':*");
    expect(searchQuery('ask:""')).toBeNull();
  });
});
