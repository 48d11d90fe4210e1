import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

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

describe("import boundaries (docs/ARCHITECTURE.md)", () => {
  const refused: [string, string][] = [
    ["lib/core/protocol/fixture.ts", 'export { schema } from "@/db/schema";'],
    ["lib/core/protocol/fixture.ts", 'export { foldRun } from "../projection/run";'],
    ["lib/core/projection/fixture.ts", 'export { ingest } from "@/lib/server/ingest/post-events";'],
    ["lib/agents/runner/fixture.ts", 'export { startChips } from "../../server/start";'],
    ["lib/agents/sdk/fixture.ts", 'export * as schema from "@/db/schema";'],
    ["lib/browser/fixture.ts", 'export { may } from "@/lib/server/roles";'],
    ["cli/fixture.ts", 'export * as schema from "../db/schema";'],
    ["components/fixture.tsx", 'export * as schema from "@/db/schema";'],
    ["components/fixture.tsx", 'export { services } from "@/lib/server/page-context";'],
    ["app/fixture/page.tsx", 'export * as schema from "@/db/schema";'],
    ["lib/server/api/fixture.ts", 'export { persons } from "@/db/schema";'],
    ["lib/server/realtime/fixture.ts", 'export { persons } from "../../../db/schema";'],
    ["lib/server/api/tables-fixture.ts", 'export { events } from "@/db/tables/log";'],
    ["lib/server/api/fixture.ts", 'export { readBudgets } from "@/db/budget-sql";'],
  ];
  it.each(refused)("%s may not: %s", async (file, code) => {
    expect(await rulesBroken(file, code)).toContain("import-x/no-restricted-paths");
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

  it("allows what the layers allow", async () => {
    expect(
      await rulesBroken("lib/core/projection/fixture.ts", 'export { CATALOGUE } from "@/lib/core/protocol";'),
    ).toEqual([]);
    expect(await rulesBroken("app/fixture/page.tsx", 'export { services } from "@/lib/server/page-context";')).toEqual(
      [],
    );
    expect(await rulesBroken("lib/server/fixture.ts", 'export * as schema from "@/db/schema";')).toEqual([]);
    expect(await rulesBroken("lib/server/realtime/fixture.ts", 'export type { Db } from "@/db/client";')).toEqual([]);
    expect(
      await rulesBroken("lib/server/api/fixture.ts", 'export { roomsOf } from "@/lib/server/queries/workspace";'),
    ).toEqual([]);
    expect(await rulesBroken("lib/browser/api.ts", 'export const f = () => fetch("/api/v1/health");')).toEqual([]);
  });
});
