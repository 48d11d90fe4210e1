#!/usr/bin/env node
// `npm run layout`: the shape of the product code, measured from its imports (type-only
// imports included, which ESLint's cycle rule does not follow): lines per folder of the
// import rule (scripts/layers.mjs), the imports that break the rule ("arrows back up"),
// and import cycles. `--check` (a stage of `npm run lint`) exits 1 on any of the last two.
// `--root DIR` measures another checkout or a fixture tree with the same rule.

import fs from "node:fs";
import path from "node:path";
import { cruise } from "dependency-cruiser";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { LAYERS, layerOf } from "./layers.mjs";

const args = process.argv.slice(2);
const check = args.includes("--check");
const rootAt = args.indexOf("--root");
const root = path.resolve(rootAt >= 0 ? args[rootAt + 1] : path.join(import.meta.dirname, ".."));
process.chdir(root);

const SOURCES = ["lib", "db", "components", "app", "cli"].filter((d) => fs.existsSync(d));
const tsConfig = fs.existsSync("tsconfig.json") ? extractTSConfig("tsconfig.json") : undefined;
const result = await cruise(
  SOURCES,
  {
    tsPreCompilationDeps: true,
    ...(tsConfig ? { tsConfig: { fileName: "tsconfig.json" } } : {}),
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["node_modules", "\\.next", "\\.d\\.ts$", "db/migrations"] },
    validate: true,
    ruleSet: { forbidden: [{ name: "cycle", severity: "error", from: {}, to: { circular: true } }] },
  },
  {},
  tsConfig ? { tsConfig } : {},
);
const modules = result.output.modules.filter(
  (m) => !m.coreModule && !m.couldNotResolve && !/node_modules/.test(m.source),
);

const folderOf = (f) =>
  layerOf(f) ??
  f
    .split("/")
    .slice(0, f.startsWith("lib/") ? 2 : 1)
    .join("/");
const sizes = new Map();
for (const m of modules) {
  if (!fs.existsSync(m.source)) continue;
  const lines = fs.readFileSync(m.source, "utf8").split("\n").length;
  const f = folderOf(m.source);
  const s = sizes.get(f) ?? { files: 0, lines: 0 };
  sizes.set(f, { files: s.files + 1, lines: s.lines + lines });
}

const back = [];
for (const m of modules) {
  const from = layerOf(m.source);
  for (const d of m.dependencies) {
    if (d.coreModule || d.couldNotResolve || /node_modules/.test(d.resolved)) continue;
    const to = layerOf(d.resolved) ?? folderOf(d.resolved);
    if (!from || to === from || LAYERS[from].includes(to)) continue;
    back.push(`${m.source} -> ${d.resolved}${d.dependencyTypes.includes("type-only") ? " (type only)" : ""}`);
  }
}
const cycles = result.output.summary.violations
  .filter((v) => v.rule.name === "cycle")
  .map((v) => [v.from, ...v.cycle.map((c) => c.name ?? c)].join(" > "));

console.log("folder                 files   lines");
for (const [f, s] of [...sizes].sort((a, b) => a[0].localeCompare(b[0])))
  console.log(
    `${f.padEnd(22)} ${String(s.files).padStart(5)} ${String(s.lines).padStart(7)}${LAYERS[f] ? "" : "  (outside the rule)"}`,
  );
console.log(`\narrows back up (imports the rule of scripts/layers.mjs refuses): ${back.length}`);
for (const b of back) console.log(`  ${b}`);
console.log(`cycles (type-only imports included): ${cycles.length}`);
for (const c of cycles) console.log(`  ${c}`);
if (check && (back.length || cycles.length)) process.exit(1);
