import type { AskRollupBy, AskRollupRow, RollupBy, RollupRow } from "@/lib/core/protocol";

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

/** What a group of asks is called ([ASKR6]): a person by their name, an agent as it is named. */
export function askRollupLabel(by: AskRollupBy, key: string | null, names: Pick<Names, "persons">): string {
  if (key === null) return by === "person" ? "nobody (unanswered)" : "no agent named";
  return by === "person" ? (names.persons[key] ?? key) : key;
}

/** A CSV field: quoted when it holds a comma, quote or line break; a formula's first character is defused. */
function field(v: string | number | null): string {
  if (v === null) return "";
  let s = String(v);
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 with CRLF: the header line, then the rows' lines. */
const csv = (head: string[], lines: string[]) => [head.join(","), ...lines].join("\r\n") + "\r\n";

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
  return csv(head, lines);
}

/**
 * Time to answer as CSV ([ASKR7]): one line per group, its name (from the workspace's
 * directory, defused like every field) and key, then the tally as the JSON rows have it.
 */
export function askRollupCsv(by: AskRollupBy, rows: AskRollupRow[], names: Pick<Names, "persons">): string {
  const cols = [
    "count",
    "answered",
    "denied",
    "expired",
    "withdrawn",
    "waiting",
    "expired_share",
    "p50_ms",
    "p90_ms",
  ] as const;
  const head = [by, "key", "asks", ...cols.slice(1)];
  return csv(
    head,
    rows.map((r) => [askRollupLabel(by, r.key, names), r.key, ...cols.map((c) => r[c])].map(field).join(",")),
  );
}
