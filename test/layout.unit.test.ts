import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

/**
 * `npm run layout -- --check` (a stage of `npm run lint`) on fixture trees: what ESLint's
 * cycle rule does not see (a cycle made of type-only imports) and an import the rule of
 * scripts/layers.mjs refuses both fail it; the real tree passes.
 */
const SCRIPT = path.join(__dirname, "..", "scripts", "layout.mjs");
const run = promisify(execFile);
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "chips-layout-"));
  dirs.push(root);
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  }
  return root;
}

async function check(root?: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [SCRIPT, "--check", ...(root ? ["--root", root] : [])]);
    return { code: 0, out: r.stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, out: err.stdout };
  }
}

describe("[ARCH2] no import cycles, type-only included; no arrow back up", () => {
  it("a cycle of type-only imports fails the check", async () => {
    const root = tree({
      "lib/server/a.ts": 'import type { B } from "./b";\nexport type A = { b?: B };\n',
      "lib/server/b.ts": 'import type { A } from "./a";\nexport type B = { a?: A };\n',
    });
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain("cycles (type-only imports included): 1");
  });

  it("an import the rule refuses fails the check (db/ importing the server)", async () => {
    const root = tree({
      "lib/server/x.ts": "export const x = 1;\n",
      "db/y.ts": 'import { x } from "../lib/server/x";\nexport const y = x;\n',
    });
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain("db/y.ts -> lib/server/x.ts");
  });

  it("a tree that keeps the rule passes, and so does this repository", async () => {
    const root = tree({
      "lib/core/protocol/p.ts": "export const p = 1;\n",
      "db/y.ts": 'import { p } from "../lib/core/protocol/p";\nexport const y = p;\n',
    });
    expect((await check(root)).code).toBe(0);
    const here = await check();
    expect(here.out).toContain("arrows back up (imports the rule of scripts/layers.mjs refuses): 0");
    expect(here.code).toBe(0);
  });
});
