import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { forbiddenFor, LAYERS } from "../scripts/layers.mjs";

/**
 * The import rules of docs/ARCHITECTURE.md ("What may import what") run on fixtures: each
 * line below would be a violation in the file named, and `npm run lint` must refuse it —
 * so a rule that stopped matching (a moved folder, a changed glob) fails here, not silently.
 */
const eslint = new ESLint({ cwd: join(__dirname, "..") });

async function rulesBroken(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.map((m) => m.ruleId ?? m.message);
}

/** A module of each folder of the rule, to import in a fixture. */
const MODULE: Record<string, string> = {
  "lib/core/async": "@/lib/core/async/keyed-lock",
  "lib/core/node": "@/lib/core/node/pid-lock",
  "lib/core/protocol": "@/lib/core/protocol",
  "lib/core/projection": "@/lib/core/projection/run",
  "lib/core/review": "@/lib/core/review/run-story",
  "lib/core/views": "@/lib/core/views/names",
  "lib/core/routes": "@/lib/core/routes",
  db: "@/db/schema",
  "lib/server": "@/lib/server/roles",
  "lib/browser": "@/lib/browser/api",
  "lib/agents": "@/lib/agents/sdk",
  "lib/dev": "@/lib/dev/seed",
  cli: "@/cli/main",
  components: "@/components/room/plan-dots",
  app: "@/app/page",
  "server.ts": "@/server",
  scripts: "@/scripts/layers.mjs",
  bench: "@/bench/lib/stats",
  test: "@/test/support/server",
  e2e: "@/e2e/support/api",
};
const fixtureIn = (unit: string) =>
  unit === "app" ? "app/fixture/page.tsx" : unit === "components" ? "components/fixture.tsx" : `${unit}/fixture.ts`;

describe("[ARCH1] the one import rule (scripts/layers.mjs, docs/ARCHITECTURE.md)", () => {
  const refused = Object.keys(LAYERS).flatMap((unit) =>
    forbiddenFor(unit).map((other) => [fixtureIn(unit), `export * as m from "${MODULE[other]}";`] as const),
  );
  it.each(refused)("%s may not: %s", async (file, code) => {
    expect(await rulesBroken(file, code)).toContain("import-x/no-restricted-paths");
  });

  const allowed = Object.entries(LAYERS).flatMap(([unit, may]) =>
    may.map((other) => [fixtureIn(unit), `export * as m from "${MODULE[other]}";`] as const),
  );
  it.each(allowed)("%s may: %s", async (file, code) => {
    expect(await rulesBroken(file, code)).not.toContain("import-x/no-restricted-paths");
  });

  it.each([
    // The same boundary whichever way the path is written.
    ["lib/core/protocol/fixture.ts", 'export { foldRun } from "../projection/run";'],
    ["lib/agents/runner/fixture.ts", 'export { startChips } from "../../server/start";'],
    ["cli/fixture.ts", 'export * as schema from "../db/schema";'],
    // Inside the server, the read door: the API and realtime take only the driver's types and migrations' state from db/.
    ["lib/server/api/fixture.ts", 'export { persons } from "@/db/schema";'],
    ["lib/server/realtime/fixture.ts", 'export { persons } from "../../../db/schema";'],
    ["lib/server/api/tables-fixture.ts", 'export { events } from "@/db/tables/log";'],
    ["lib/server/api/fixture.ts", 'export { readBudgets } from "@/db/budget-sql";'],
  ])("%s may not: %s", async (file, code) => {
    expect(await rulesBroken(file, code)).toContain("import-x/no-restricted-paths");
  });

  it("the read door lets the API and realtime read through the queries and take the driver's types", async () => {
    expect(await rulesBroken("lib/server/realtime/fixture.ts", 'export type { Db } from "@/db/client";')).toEqual([]);
    expect(
      await rulesBroken("lib/server/api/fixture.ts", 'export { roomsOf } from "@/lib/server/queries/workspace";'),
    ).toEqual([]);
  });

  it.each([
    ["app/fixture/page.tsx", 'export { eq } from "drizzle-orm";'],
    ["components/fixture.tsx", 'export { pgTable } from "drizzle-orm/pg-core";'],
    ["lib/server/api/fixture.ts", 'export { eq } from "drizzle-orm";'],
    ["lib/server/realtime/fixture.ts", 'export { sql } from "drizzle-orm";'],
  ])("%s writes no query: %s", async (file, code) => {
    expect(await rulesBroken(file, code)).toContain("no-restricted-imports");
  });

  it.each([
    ["components/fixture.tsx", 'export const f = () => fetch("/api/v1/health");', "no-restricted-globals"],
    ["app/fixture/page.tsx", 'export const f = () => window.fetch("/api/v1/health");', "no-restricted-properties"],
    [
      "lib/browser/fixture.ts",
      'export const f = () => globalThis.fetch("/api/v1/health");',
      "no-restricted-properties",
    ],
  ])("%s calls the API only through lib/browser/api.ts: %s", async (file, code, rule) => {
    expect(await rulesBroken(file, code)).toContain(rule);
  });

  it("only lib/browser/api.ts calls fetch", async () => {
    expect(await rulesBroken("lib/browser/api.ts", 'export const f = () => fetch("/api/v1/health");')).toEqual([]);
  });
});
