/** A plain-text table: a header row and rows of cells, columns padded to fit. */
export function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const w = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    "| " + r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(" | ") + " |";
  return [
    line(head),
    "|" + w.map((n, i) => (i === 0 ? "-".repeat(n + 2) : "-".repeat(n + 1) + ":")).join("|") + "|",
    ...cells.slice(1).map(line),
  ].join("\n");
}

export const ms = (v: number) =>
  Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) : "–";
export const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "–";
export const pct = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)}%` : "–");

export interface Aim {
  what: string;
  aim: string;
  got: string;
  met: boolean;
}

export function aimsTable(aims: Aim[]): string {
  return table(
    ["aim", "target", "measured", "verdict"],
    aims.map((a) => [a.what, a.aim, a.got, a.met ? "met" : "MISSED"]),
  );
}
