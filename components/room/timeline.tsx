"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { TimelineItem } from "@/lib/browser/room-state";
import type { Run } from "@/lib/core/protocol";
import type { Directory } from "../../lib/core/views/names";
import { TimelineEntry } from "./timeline-item";

interface Props {
  items: TimelineItem[];
  runs: Record<string, Run>;
  dir: Directory;
  hasOlder: boolean;
  loadOlder: () => Promise<number>;
  /** Scroll this run's card into view (from the active-runs rail). */
  focusRun: string | null;
}

const NEAR_BOTTOM = 48;
const NEAR_TOP = 400;

/**
 * The timeline: virtualized so long history stays fast, older pages loaded on scroll up,
 * stuck to the bottom only while the reader is there — otherwise a "N new" pill.
 */
export function Timeline({ items, runs, dir, hasOlder, loadOlder, focusRun }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const loading = useRef(false);
  const seen = useRef({ first: items[0]?.seq ?? 0, count: items.length });
  const [unread, setUnread] = useState(0);

  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 76,
    overscan: 8,
    getItemKey: (i) => items[i].seq,
  });

  // The room opens at its newest events.
  useLayoutEffect(() => {
    if (items.length) v.scrollToIndex(items.length - 1, { align: "end" });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // New items: follow them when at the bottom; count them otherwise. Older items: keep the view still.
  useLayoutEffect(() => {
    const prev = seen.current;
    const first = items[0]?.seq ?? 0;
    const prepended = prev.count && first < prev.first ? items.findIndex((i) => i.seq === prev.first) : 0;
    const appended = items.length - prev.count - prepended;
    seen.current = { first, count: items.length };
    if (prepended > 0) v.scrollToIndex(prepended, { align: "start" });
    if (appended > 0) {
      if (atBottom.current) v.scrollToIndex(items.length - 1, { align: "end" });
      else setUnread((n) => n + appended);
    }
  }, [items, v]);

  useEffect(() => {
    if (!focusRun) return;
    const at = items.findIndex((i) => i.kind === "run" && i.runId === focusRun);
    if (at >= 0) v.scrollToIndex(at, { align: "center" });
  }, [focusRun, items, v]);

  const onScroll = () => {
    const el = scroller.current!;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM;
    if (atBottom.current && unread) setUnread(0);
    if (el.scrollTop < NEAR_TOP && hasOlder && !loading.current) {
      loading.current = true;
      void loadOlder().finally(() => (loading.current = false));
    }
  };

  return (
    <div className="relative min-h-0 flex-1">
      <div
        ref={scroller}
        onScroll={onScroll}
        data-testid="timeline"
        role="log"
        aria-label="Timeline"
        tabIndex={0}
        className="h-full overflow-y-auto focus-visible:outline-2 focus-visible:outline-blue-600"
      >
        {hasOlder && (
          <p className="py-2 text-center text-xs text-zinc-600 dark:text-zinc-400">Loading older messages…</p>
        )}
        {!hasOlder && items.length === 0 && (
          <p className="px-4 py-10 text-center text-sm text-zinc-600 dark:text-zinc-400">
            Nothing here yet. Say hello, or start a harness.
          </p>
        )}
        <div style={{ height: v.getTotalSize(), position: "relative" }}>
          {v.getVirtualItems().map((row) => {
            const item = items[row.index];
            return (
              <div
                key={row.key}
                data-index={row.index}
                ref={v.measureElement}
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  width: "100%",
                  transform: `translateY(${row.start}px)`,
                }}
              >
                <TimelineEntry
                  item={item}
                  run={item.kind !== "message" && item.runId ? runs[item.runId] : undefined}
                  dir={dir}
                />
              </div>
            );
          })}
        </div>
      </div>
      {unread > 0 && (
        <button
          type="button"
          data-testid="new-pill"
          onClick={() => {
            v.scrollToIndex(items.length - 1, { align: "end" });
            setUnread(0);
          }}
          className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full bg-blue-700 px-3 py-1 text-xs font-medium text-white shadow focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
        >
          {unread} new
        </button>
      )}
    </div>
  );
}
