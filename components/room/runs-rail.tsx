import type { Run } from "@/lib/core/protocol";
import { runHarnessName, type Directory } from "../../lib/core/views/names";
import { NeedsYou } from "../asks/needs-you";

/** Runs that wait for a person first, the longest waiting first; the others as they came. */
const waitingFirst = (runs: Run[]) =>
  [...runs].sort((a, b) =>
    a.waiting_since && b.waiting_since
      ? a.waiting_since.localeCompare(b.waiting_since)
      : a.waiting_since
        ? -1
        : b.waiting_since
          ? 1
          : 0,
  );

const MINI: Record<string, string> = {
  pending: "border border-zinc-400",
  active: "border border-blue-600 bg-blue-200",
  done: "bg-blue-600",
  failed: "bg-red-600",
  skipped: "border border-zinc-400 opacity-50",
};

/** One compact row per running or paused run, those that need a person first ([ASK4]); a click scrolls to its card. */
export function RunsRail({ runs, dir, onPick }: { runs: Run[]; dir: Directory; onPick: (runId: string) => void }) {
  return (
    <aside aria-label="Active runs" className="w-full overflow-y-auto p-3 text-sm">
      <h2 className="mb-2 text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Active runs</h2>
      {!runs.length && <p className="text-xs text-zinc-600 dark:text-zinc-400">No run is going.</p>}
      <ul className="space-y-1">
        {waitingFirst(runs).map((r) => (
          <li key={r.id} data-rail-run-id={r.id}>
            <button
              type="button"
              onClick={() => onPick(r.id)}
              className="w-full rounded-md px-2 py-1.5 text-left hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-600 dark:hover:bg-zinc-900"
            >
              <span className="flex items-center justify-between gap-2">
                <span className="truncate font-medium">{runHarnessName(dir, r)}</span>
                <span className="text-xs text-zinc-600 dark:text-zinc-400">{r.pending ?? r.state}</span>
              </span>
              {r.asks_open > 0 && (
                <span className="mt-1 block">
                  <NeedsYou run={r} />
                </span>
              )}
              <span aria-hidden className="mt-1 flex flex-wrap gap-1">
                {r.plan.map((s) => (
                  <span key={s.step_id} className={`h-2 w-2 rounded-full ${MINI[s.state]}`} />
                ))}
              </span>
              {r.status && r.state === "running" && !r.asks_open && (
                <span className="mt-0.5 block truncate text-xs text-zinc-600 dark:text-zinc-400">
                  {r.status.verb_phrase}
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
