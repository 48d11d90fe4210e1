import type { Run } from "@/lib/core/protocol";

const time = (ts: string) => new Date(ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** [ASK4] "needs you · since 14:02": a run with asks waiting for a person, at a glance (run panel, rail). */
export function NeedsYou({ run }: { run: Pick<Run, "asks_open" | "waiting_since"> }) {
  if (!run.asks_open || !run.waiting_since) return null;
  return (
    <span
      data-testid="run-needs-you"
      data-since={run.waiting_since}
      data-asks={run.asks_open}
      className="rounded-full bg-amber-200 px-2 py-0.5 text-xs font-medium text-amber-950 dark:bg-amber-800 dark:text-amber-50"
    >
      needs you{run.asks_open > 1 ? ` (${run.asks_open})` : ""} · since{" "}
      <time dateTime={run.waiting_since}>{time(run.waiting_since)}</time>
    </span>
  );
}
