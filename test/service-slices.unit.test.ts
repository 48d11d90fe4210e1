import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** Where the services are held whole: they are built, and each transport hands out slices of them. */
const COMPOSITION = [
  "lib/server/services.ts",
  "lib/server/start.ts",
  "lib/server/page-context.ts",
  "lib/server/api/app.ts",
  "lib/server/realtime/attach.ts",
];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : /\.tsx?$/.test(d.name) ? [p] : [];
  });
}

/** Each use of the ChipsServices type that is neither its import, a Pick of it, nor one field's type: its line. */
function wholeUses(text: string): string[] {
  const code = text.replace(/^import\b[\s\S]*?\bfrom\s+"[^"]+";/gm, "");
  return [...code.matchAll(/(Pick<\s*)?\bChipsServices\b(\s*\[)?/g)]
    .filter((m) => !m[1] && !m[2])
    .map((m) => {
      const start = code.lastIndexOf("\n", m.index) + 1;
      const end = code.indexOf("\n", m.index);
      return code.slice(start, end < 0 ? undefined : end).trim();
    });
}

describe("[ARCH4] each handler is given the slice of the services it uses", () => {
  it("[ARCH4] outside the composition no server function, class or handler set takes ChipsServices whole", () => {
    const found = sources("lib/server")
      .map((f) => path.relative(".", f))
      .filter((f) => !COMPOSITION.includes(f))
      .flatMap((f) => wholeUses(fs.readFileSync(f, "utf8")).map((line) => `${f}: ${line}`));
    expect(found).toEqual([]);
  });

  it("[ARCH4] the check sees a whole use and lets a slice, a field's type and the import pass", () => {
    expect(
      wholeUses(`import type { ChipsServices } from "../services";\nexport function f(svc: ChipsServices) {}`),
    ).toEqual(["export function f(svc: ChipsServices) {}"]);
    expect(wholeUses(`function f(svc: Pick<ChipsServices, "db">, db: ChipsServices["db"]) {}`)).toEqual([]);
    expect(wholeUses(`function f(\n  svc: Pick<\n    ChipsServices,\n    "db" | "writer"\n  >,\n) {}`)).toEqual([]);
    expect(wholeUses(`const m = new WeakMap<ChipsServices, number>();`)).toHaveLength(1);
  });
});
