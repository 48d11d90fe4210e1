import { describe, expect, it } from "vitest";
import { inScope, scopesOverlap } from "../lib/core/protocol/scope";
import { SCOPE_CHECK, scopeCheck } from "../lib/agents/runner/checks";

describe("[TSK4][TSK5] write scopes: path globs", () => {
  it("[TSK5] a path is in a scope when a glob matches it: ** spans segments, * and ? stay in one", () => {
    expect(inScope("src/a/b.ts", ["src/**"])).toBe(true);
    expect(inScope("src/b.ts", ["src/**/b.ts"])).toBe(true);
    expect(inScope("src/a/b.ts", ["src/*.ts"])).toBe(false);
    expect(inScope("docs/x.md", ["src/**", "docs/?.md"])).toBe(true);
    expect(inScope("README.md", ["src/**"])).toBe(false);
    expect(inScope("a+b(c).ts", ["a+b(c).ts"])).toBe(true);
  });

  it("[TSK4] two scopes overlap when one may name a path of the other (conservatively)", () => {
    expect(scopesOverlap(["src/**"], ["src/lib/x.ts"])).toBe(true);
    expect(scopesOverlap(["**"], ["docs/**"])).toBe(true);
    expect(scopesOverlap(["src/**"], ["docs/**"])).toBe(false);
    expect(scopesOverlap(["src/a.ts"], ["src/b.ts"])).toBe(false);
    expect(scopesOverlap(["src/*.ts"], ["src/lib/x.ts"])).toBe(false);
  });

  it("[TSK5] the scope check fails with the paths outside the scope as its evidence", async () => {
    const stored: string[] = [];
    const upload = async (b: Buffer) => (
      stored.push(b.toString()),
      { key: "k", sha256: "0".repeat(64), bytes: b.length }
    );
    const bad = await scopeCheck(["src/a.ts", "etc/passwd", "README.md"], ["src/**"], upload);
    expect([bad.command, bad.passed, bad.exit_code, bad.outside]).toEqual([
      SCOPE_CHECK,
      false,
      1,
      ["etc/passwd", "README.md"],
    ]);
    expect(stored[0]).toBe("outside the write scope (src/**):\netc/passwd\nREADME.md\n");
    const good = await scopeCheck(["src/a.ts"], ["src/**"], upload);
    expect([good.passed, good.exit_code, good.outside]).toEqual([true, 0, []]);
  });
});
