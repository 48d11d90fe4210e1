import type { RollupBy, RollupRow } from "@/lib/core/protocol";

/** Names by id, as the review pages have them (people, harnesses and runners, rooms). */
interface Names {
  persons: Record<string, string>;
  harnesses: Record<string, string>;
  rooms: Record<string, string>;
}

/** What a group is called: a day or week as is, an id by its name, no key as "none". */
export function rollupLabel(by: RollupBy, key: string | null, names: Names): string {
  if (key === null) return by === "person" ? "at the harness" : by === "tool" ? "unnamed" : "none";
  if (by === "harness") return names.harnesses[key] ?? key;
  if (by === "person") return names.persons[key] ?? key;
  if (by === "room") return names.rooms[key] ?? key;
  return by === "week" ? `week of ${key}` : key;
}

/** A CSV field: quoted when it holds a comma, quote or line break; a formula's first character is defused. */
function field(v: string | number | null): string {
  if (v === null) return "";
  let s = String(v);
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A rollup as CSV (RFC 4180, CRLF): one header line, one line per group. */
export function rollupCsv(by: RollupBy, rows: RollupRow[], names: Names): string {
  // By tool the groups are calls ([TOOL6]): their count comes after the runs that made them.
  const calls = by === "tool";
  const head = [
    by,
    "key",
    "runs",
    ...(calls ? ["calls"] : []),
    "finished",
    "failed",
    "failure_rate",
    "p50_ms",
    "p90_ms",
    "tokens",
    "cost_usd",
  ];
  const lines = rows.map((r) =>
    [
      rollupLabel(by, r.key, names),
      r.key,
      r.runs,
      ...(calls ? [r.calls ?? 0] : []),
      r.finished,
      r.failed,
      r.failure_rate,
      r.p50_ms,
      r.p90_ms,
      r.tokens,
      r.cost_usd,
    ]
      .map(field)
      .join(","),
  );
  return [head.join(","), ...lines].join("\r\n") + "\r\n";
}
