"use client";

import { useState } from "react";
import { runEvents } from "@/lib/browser/review-api";
import { LOG_SECTIONS, type LogSection, type LogWindow } from "@/lib/core/review/run-log";
import type { Directory } from "@/lib/core/views/names";
import { Messages, RunnerLog, StatusHistory } from "./run-record";
import { button, muted } from "./format";

/**
 * One long section of the run page (statuses, messages, the runner's log): the window the
 * page came with, and "show more" reading the next window from the server ([REV3]). A
 * shared view has its whole range at hand, so it never offers more.
 */
export function LogSectionView({
  runId,
  section,
  first,
  dir,
}: {
  /** Null in a shared view: nothing more is read. */
  runId: string | null;
  section: LogSection;
  first: LogWindow;
  dir: Directory;
}) {
  const [w, setW] = useState(first);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <div data-testid={`log-${section}`} data-shown={w.events.length}>
      {section === "statuses" ? (
        <StatusHistory events={w.events} dir={dir} />
      ) : section === "messages" ? (
        <Messages events={w.events} dir={dir} />
      ) : (
        <RunnerLog events={w.events} runId={runId} />
      )}
      {runId && w.next !== null && (
        <p className="mt-2 text-sm">
          <button
            type="button"
            className={button}
            disabled={busy}
            data-testid={`log-more-${section}`}
            onClick={async () => {
              setBusy(true);
              const r = await runEvents(runId, LOG_SECTIONS[section], w.next!);
              setBusy(false);
              if (!r.ok) return setError(r.detail);
              setError(null);
              setW({ events: [...w.events, ...r.value.events], next: r.value.next });
            }}
          >
            Show more
          </button>
          <span className={`ml-2 ${muted}`}>{w.events.length} shown so far</span>
          {error && (
            <span role="alert" className="ml-2 text-red-800 dark:text-red-300">
              {error}
            </span>
          )}
        </p>
      )}
    </div>
  );
}
