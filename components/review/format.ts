/** How the review pages write times, durations, money and tokens: the same on the server and in the browser (UTC). */

export function when(iso: string | null): string {
  if (!iso) return "—";
  return iso.slice(0, 16).replace("T", " ");
}

export function took(ms: number | null): string {
  if (ms === null) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** A tool call's time, finer than a run's ([TOOL5]): "340 ms", "1.2 s", "2 m 5 s". */
export function callTime(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A tally of calls: "3 calls · 1 failed · 2.4 s". */
export function callTally(t: { count: number; failed: number; ms: number }): string {
  return `${t.count} ${t.count === 1 ? "call" : "calls"}${t.failed ? ` · ${t.failed} failed` : ""}${t.ms ? ` · ${callTime(t.ms)}` : ""}`;
}

export const tokens = (n: number | null) => (n === null ? "—" : n.toLocaleString("en-US"));
export const usd = (n: number | null) => (n === null ? "—" : `$${n.toFixed(4)}`);

/** What a run ended as, or where it stands. */
export function statusText(r: { state: string; outcome: string | null }): string {
  return r.state === "finished" ? (r.outcome ?? "finished") : r.state;
}

export const STATUS_TONE: Record<string, string> = {
  succeeded: "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200",
  failed: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  cancelled: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  running: "bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200",
  paused: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  queued: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
};

export const VERDICT_TEXT: Record<string, string> = {
  approved: "approved",
  needs_work: "needs work",
  rejected: "rejected",
};

export const link =
  "text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300";
export const muted = "text-zinc-600 dark:text-zinc-400";
