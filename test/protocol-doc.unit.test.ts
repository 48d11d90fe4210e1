import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CATALOGUE, ERROR_STATUS, EVENT_TYPES, ID_PREFIX, LIMITS } from "@/lib/core/protocol";

/**
 * docs/PROTOCOL.md is the contract a clone reads; these checks keep it from drifting from
 * the code it describes (the catalogue, the error codes, the id prefixes) and keep every
 * rule ID a test names defined in a doc, and every rule the contract defines tested.
 */
const root = join(__dirname, "..");
const doc = readFileSync(join(root, "docs/PROTOCOL.md"), "utf8");
const allDocs = readdirSync(join(root, "docs"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => readFileSync(join(root, "docs", f), "utf8"))
  .join("\n");

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && /\.(test|spec)\.ts$/.test(d.name))
    .map((d) => join(d.parentPath, d.name));
}
const testText = [...filesUnder("test"), ...filesUnder("e2e")].map((f) => readFileSync(f, "utf8")).join("\n");
const ruleIds = (s: string) => new Set([...s.matchAll(/\[([A-Z]+[0-9]+)\]/g)].map((m) => m[1]));

describe("docs/PROTOCOL.md against lib/core/protocol", () => {
  it("[ENV2] lists every type of the catalogue, with who may send it", () => {
    for (const type of EVENT_TYPES) {
      const row = doc.split("\n").find((l) => l.startsWith(`| \`${type}\` |`));
      expect(row, type).toBeDefined();
      for (const kind of CATALOGUE[type].sentBy)
        if (kind !== "runner" || type === "runner.event") expect(row, `${type} sent by ${kind}`).toContain(kind);
    }
  });

  it("[HTTP2] names every error code", () => {
    for (const code of Object.keys(ERROR_STATUS)) expect(doc, code).toContain(code);
  });

  it("names every id prefix and the limits it quotes", () => {
    for (const prefix of Object.values(ID_PREFIX)) expect(doc, prefix).toContain(`\`${prefix}\``);
    expect(doc).toContain(`at most ${LIMITS.batchEvents} events`);
    expect(doc).toContain(`${LIMITS.idempotencyKey} characters`);
  });

  it("every rule it defines is named by a test, and every rule a test names is defined in docs/", () => {
    const tested = ruleIds(testText);
    const untested = [...ruleIds(doc)].filter((id) => !tested.has(id));
    expect(untested).toEqual([]);
    const defined = ruleIds(allDocs);
    const undefinedIds = [...tested].filter((id) => !defined.has(id));
    expect(undefinedIds).toEqual([]);
  });
});

describe("the docs a clone reads", () => {
  const pages = [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  it("every relative link of README.md and docs/ points at a file of the repo, never outside it", () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(join(root, page), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target)) continue; // http:, mailto:
        const path = join(root, page, "..", target);
        if (!path.startsWith(root + "/") || !existsSync(path)) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README stays a front page", () => {
    expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(160);
  });
});
