"use client";

import { useState } from "react";
import { runEvents } from "@/lib/browser/review-api";
import { LOG_SECTIONS, type LogSection, type LogWindow } from "@/lib/core/review/run-log";
import type { Directory } from "@/lib/core/views/names";
import { Button } from "../ui/button";
import { Alert } from "../ui/alert";
import { useAction } from "../ui/use-action";
import { Messages, RunnerLog, StatusHistory } from "./run-record";
import { muted } from "./format";

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
  const more = useAction((id: string, after: number) => runEvents(id, LOG_SECTIONS[section], after), {
    onDone: (r) => setW((was) => ({ events: [...was.events, ...r.events], next: r.next })),
  });
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
          <Button busy={more.busy} data-testid={`log-more-${section}`} onClick={() => more.run(runId, w.next!)}>
            Show more
          </Button>
          <span className={`ml-2 ${muted}`}>{w.events.length} shown so far</span>
        </p>
      )}
      <Alert className="mt-1 text-sm">{more.error}</Alert>
    </div>
  );
}
