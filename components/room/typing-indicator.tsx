import type { Run } from "@/lib/core/protocol";
import { actorName, type Directory } from "../../lib/core/views/names";

/**
 * Which runs are "typing" ([UI2]): running (a pause or finish hides it), not waiting for a
 * person's answer (its last status, sent before it asked, would claim work it is not doing:
 * "needs you" says what it waits for), with a status younger than the TTL, and a harness that
 * has not gone unresponsive. Never a ghost.
 */
export function typingRuns(runs: Run[], now: number, ttlMs: number, unresponsive: (run: Run) => boolean): Run[] {
  return runs
    .filter(
      (r) =>
        r.state === "running" && !r.asks_open && r.status && now - Date.parse(r.status.ts) < ttlMs && !unresponsive(r),
    )
    .sort((a, b) => Date.parse(a.status!.ts) - Date.parse(b.status!.ts));
}

function formatLeft(seconds: number): string {
  if (seconds < 60) return `~${seconds} s left`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `~${m} min ${seconds % 60} s left`;
  return `~${Math.floor(m / 60)} h ${m % 60} min left`;
}

/** "… is typing", one line per busy run: the verb_phrase verbatim, a bar, a countdown. */
export function TypingIndicators({ runs, now, dir }: { runs: Run[]; now: number; dir: Directory }) {
  if (!runs.length) return null;
  return (
    <div aria-live="polite" className="space-y-1 border-t border-zinc-200 px-4 py-2 dark:border-zinc-800">
      {runs.map((run) => {
        const s = run.status!;
        const pct = s.progress !== undefined ? Math.round(s.progress * 100) : null;
        // Never more than the estimate itself: the page's clock may trail the server's by the render's travel time.
        const left =
          s.estimate_seconds !== undefined
            ? Math.min(
                Math.round(s.estimate_seconds),
                Math.max(0, Math.round(s.estimate_seconds - (now - Date.parse(s.ts)) / 1000)),
              )
            : null;
        return (
          <div
            key={run.id}
            data-testid="typing-indicator"
            data-run-id={run.id}
            className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 text-sm"
          >
            <span className="flex items-center gap-1.5 font-medium">
              <span aria-hidden className="typing-dots" />
              {actorName(dir, s.actor)}
            </span>
            <span data-testid="typing-verb-phrase" className="min-w-0 truncate text-zinc-700 dark:text-zinc-300">
              {s.verb_phrase}
            </span>
            {pct !== null && (
              <span className="flex items-center gap-1.5">
                <span
                  data-testid="typing-progress"
                  role="progressbar"
                  aria-label={`${actorName(dir, s.actor)} progress`}
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={pct}
                  className="block h-1.5 w-24 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
                >
                  <span
                    className="block h-full rounded-full bg-blue-600 transition-[width] duration-500 dark:bg-blue-400"
                    style={{ width: `${pct}%` }}
                  />
                </span>
                <span className="tabular-nums text-xs text-zinc-600 dark:text-zinc-400">{pct}%</span>
              </span>
            )}
            {left !== null && (
              <span
                data-testid="typing-eta"
                data-seconds={left}
                className="tabular-nums text-xs text-zinc-600 dark:text-zinc-400"
              >
                {formatLeft(left)}
              </span>
            )}
          </div>
        );
      })}
    </div>
  );
}
