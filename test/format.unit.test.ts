import { join } from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";

/**
 * The format is Prettier's with the repo's .prettierrc.json, and `npm run lint` ends with
 * `prettier --check .`: a file written otherwise is refused. Run on fixtures, so a config that
 * stopped applying (a moved or renamed file, an ignore that swallowed a folder) fails here.
 */
const root = join(__dirname, "..");

async function formatted(relPath: string, code: string): Promise<boolean> {
  const filepath = join(root, relPath);
  const options = await prettier.resolveConfig(filepath, { editorconfig: false });
  expect(options, `${relPath} has a Prettier config`).not.toBeNull();
  return prettier.check(code, { ...options, filepath });
}

describe("the format (Prettier, .prettierrc.json)", () => {
  it.each([
    ["lib/server/fixture.ts", "export const a = 'single quotes';\n"],
    ["components/fixture.tsx", "export const f = ( x:number )=>x+1\n"],
    ["test/fixture.test.ts", `export const long = [${Array.from({ length: 40 }, (_, i) => i).join(", ")}];\n`],
  ])("%s is refused when written otherwise: %s", async (file, code) => {
    expect(await formatted(file, code)).toBe(false);
  });

  it("accepts the house style: double quotes, trailing commas, up to 120 columns", async () => {
    const code = 'export const pair = { a: "x", b: [1, 2] };\n';
    expect(await formatted("lib/server/fixture.ts", code)).toBe(true);
    const wide = `export const wide = [${Array.from({ length: 24 }, (_, i) => i).join(", ")}];\n`;
    expect(wide.length).toBeGreaterThan(80);
    expect(await formatted("lib/server/fixture.ts", wide)).toBe(true);
  });

  it("checks the code and leaves generated and third-party files alone", async () => {
    const ignored = async (p: string) =>
      (await prettier.getFileInfo(join(root, p), { ignorePath: join(root, ".prettierignore") })).ignored;
    expect(await ignored("lib/server/ingest/writer.ts")).toBe(false);
    expect(await ignored("db/migrations/0000_init.sql")).toBe(true);
    expect(await ignored(".next/server/app.js")).toBe(true);
  });
});
