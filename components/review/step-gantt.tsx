import type { Ask } from "@/lib/core/protocol";
import type { StepBar } from "@/lib/core/review/run-story";
import { muted, took, when } from "./format";

const BAR: Record<StepBar["state"], string> = {
  pending: "bg-zinc-300 dark:bg-zinc-700",
  active: "bg-blue-400 dark:bg-blue-500",
  done: "bg-blue-600 dark:bg-blue-400",
  failed: "bg-red-600 dark:bg-red-400",
  skipped: "bg-zinc-300 dark:bg-zinc-600",
};

/**
 * The plan as a timeline of bars (a Gantt view): each step from when it went active to when
 * it ended, its duration written out; paused spans inside a bar are hatched (waiting, not working).
 * Below the steps, the run's asks ([ASKR1]): each from when it was asked to its answer (or its
 * close), the time the agent waited for a person, where it fell among the steps.
 */
export function StepGantt({ bars, from, to, asks = [] }: { bars: StepBar[]; from: string; to: string; asks?: Ask[] }) {
  if (!bars.length) return <p className={`text-sm ${muted}`}>This run had no plan.</p>;
  const t0 = Date.parse(from);
  const span = Math.max(1, Date.parse(to) - t0);
  const pct = (t: string) => `${Math.min(100, Math.max(0, ((Date.parse(t) - t0) / span) * 100))}%`;
  const width = (a: string, b: string) => `${Math.max(0.5, ((Date.parse(b) - Date.parse(a)) / span) * 100)}%`;
  return (
    <ol className="space-y-1.5" aria-label="Plan timeline">
      {bars.map((b) => (
        <li
          key={b.step_id}
          data-testid="gantt-step"
          data-step-id={b.step_id}
          data-state={b.state}
          data-duration-ms={b.duration_ms ?? ""}
          data-waiting-ms={b.waiting_ms}
          className="grid grid-cols-[minmax(8rem,14rem)_1fr_7rem] items-center gap-2 text-sm"
        >
          <span className="truncate" title={b.title}>
            {b.title}
          </span>
          <span className="relative block h-4 rounded bg-zinc-100 dark:bg-zinc-900" aria-hidden>
            {b.start && b.end && (
              <span
                className={`absolute top-0 block h-4 rounded ${BAR[b.state]}`}
                style={{ left: pct(b.start), width: width(b.start, b.end) }}
              >
                {b.waiting.map((w) => (
                  <span
                    key={w.from}
                    className="gantt-waiting absolute top-0 block h-4"
                    style={{
                      left: `${((Date.parse(w.from) - Date.parse(b.start!)) / Math.max(1, Date.parse(b.end!) - Date.parse(b.start!))) * 100}%`,
                      width: `${((Date.parse(w.to) - Date.parse(w.from)) / Math.max(1, Date.parse(b.end!) - Date.parse(b.start!))) * 100}%`,
                    }}
                  />
                ))}
              </span>
            )}
          </span>
          <span className="tabular-nums text-xs">
            <span data-testid="gantt-duration">
              {b.start ? took(b.duration_ms) : b.state === "skipped" ? "skipped" : "not begun"}
            </span>
            {b.waiting_ms > 0 && <span className={`block ${muted}`}>{took(b.waiting_ms)} paused</span>}
            <span className="sr-only">{b.start ? ` from ${when(b.start)} to ${when(b.end)}` : ""}</span>
          </span>
        </li>
      ))}
      {asks.length > 0 && <AskRow asks={asks} pct={pct} width={width} to={to} />}
    </ol>
  );
}

/** The asks' row: a bar per ask over the time it waited for a person. */
function AskRow({
  asks,
  pct,
  width,
  to,
}: {
  asks: Ask[];
  pct: (t: string) => string;
  width: (a: string, b: string) => string;
  to: string;
}) {
  const ends = asks.map((a) => a.answer?.at ?? a.settled_at ?? to);
  const waited = asks.reduce((n, a, i) => n + Math.max(0, Date.parse(ends[i]) - Date.parse(a.created_at)), 0);
  return (
    <li
      data-testid="gantt-asks"
      data-waited-ms={waited}
      className="grid grid-cols-[minmax(8rem,14rem)_1fr_7rem] items-center gap-2 text-sm"
    >
      <span className={muted}>Waiting for a person</span>
      <span className="relative block h-4 rounded bg-zinc-100 dark:bg-zinc-900" aria-hidden>
        {asks.map((a, i) => (
          <span
            key={a.ask_id}
            data-testid="gantt-ask"
            data-ask-id={a.ask_id}
            className="absolute top-0 block h-4 rounded bg-amber-500 dark:bg-amber-400"
            style={{ left: pct(a.created_at), width: width(a.created_at, ends[i]) }}
          />
        ))}
      </span>
      <span className="tabular-nums text-xs">
        {took(waited)}
        <span className="sr-only">
          {" "}
          in all, over {asks.length} {asks.length === 1 ? "ask" : "asks"}
        </span>
      </span>
    </li>
  );
}
