import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { errorsOf, type RouteDecl } from "../lib/core/protocol/route";
import { ROUTES } from "../lib/core/routes";

/**
 * `npm run docs:api`: docs/API.md's route list, written from the route table (lib/core/routes)
 * between the markers. test/api-doc.unit.test.ts fails when the checked-in list is not this one.
 */

const BEGIN = "<!-- routes:begin (npm run docs:api writes this list from lib/core/routes) -->";
const END = "<!-- routes:end -->";

const KIND: Record<string, string> = {
  admin: "the admin",
  person: "a person",
  harness: "a harness",
  runner: "a runner",
};

/** Who may call, in a few words. */
function who(r: RouteDecl): string {
  const w = r.who;
  if (w.open) return "anyone";
  const kinds = w.kinds?.map((k) => KIND[k]).join(" or ");
  const role =
    w.may === "manage" ? "an owner (or the admin)" : w.may === "write" ? "who may write (not a viewer)" : undefined;
  if (kinds && role) return w.may === "manage" ? role : `${kinds} ${role}`;
  return kinds ?? (role ? `any credential ${role}` : "any credential");
}

const SCOPE = { workspace: " of `:ws`", run: " of the run's workspace", space: " of the room's workspace" };

function row(r: RouteDecl): string {
  const answers = Object.keys(r.answers).join(", ");
  const codes = errorsOf(r)
    .filter((c) => r.errors.includes(c) || !["unauthorized", "rate_limited", "unavailable", "internal"].includes(c))
    .map((c) => `\`${c}\``)
    .join(" ");
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  return `| \`${r.method.toUpperCase()} ${r.path}\` | ${who(r)}${r.scope && !r.who.open ? SCOPE[r.scope] : ""} | ${cell(r.summary)} | ${answers} | ${codes} |`;
}

/** The list: one table a part of the API, in the table's order. */
function routeList(): string {
  const byTag = new Map<string, RouteDecl[]>();
  for (const r of Object.values(ROUTES as Record<string, RouteDecl>))
    byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r]);
  const parts: string[] = [];
  for (const [tag, routes] of byTag) {
    parts.push(`#### ${tag}`, "", "| route | who | what | answers | refusals |", "|---|---|---|---|---|");
    parts.push(...routes.map(row), "");
  }
  return parts.join("\n");
}

/** `doc` with its route list replaced by the one the table makes. */
export function withRouteList(doc: string): string {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/API.md has no ${BEGIN} … ${END} markers`);
  return `${doc.slice(0, a + BEGIN.length)}\n\n${routeList()}\n${doc.slice(b)}`;
}

/** docs/API.md, from the repository's root. */
export const API_DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "API.md");

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = fs.readFileSync(API_DOC, "utf8");
  const next = withRouteList(doc);
  if (next !== doc) fs.writeFileSync(API_DOC, next);
  console.log(next === doc ? "docs/API.md's route list is current" : "docs/API.md's route list written");
}
