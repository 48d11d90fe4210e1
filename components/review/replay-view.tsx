"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { applyEvents, emptyRoom, type RoomState } from "@/lib/browser/room-state";
import type { Run, StoredEvent } from "@/lib/core/protocol";
import { RoomActionsContext, type RoomActions } from "@/components/room/room-context";
import type { Directory } from "@/lib/core/views/names";
import { Timeline } from "@/components/room/timeline";
import { TypingIndicators, typingRuns } from "@/components/room/typing-indicator";
import { Button } from "../ui/button";
import { Select } from "../ui/field";
import { muted, when } from "./format";

/** Folded states kept every this many events, so a jump folds at most this many. */
const CHECKPOINT = 250;
const SPEEDS = [1, 2, 5, 10, 20] as const;
/** A long quiet gap in the log plays as at most this long (before the speed-up). */
const MAX_GAP_MS = 3000;

/** A replay draws no buttons (`canAct` is false): nothing can be sent from it. */
const noAction = () => Promise.reject(new Error("a replay sends nothing"));

/**
 * A replay of a run ([RPL1]): the room as it was at any seq of the run's span — the same
 * timeline, run panel, dots, typing indicator (with its progress and time left as then) and
 * receipts the live room draws, folded from the log by the same projection (room-state's
 * applyEvents → lib/core/projection). The scrubber moves over the seqs; play runs at 1×–20× the
 * log's own pace; the URL keeps the seq, so a link can point at one.
 */
export function ReplayView({
  run,
  events,
  dir,
  statusTtlSeconds,
  initialSeq,
}: {
  run: Run;
  events: StoredEvent[];
  dir: Directory;
  statusTtlSeconds: number;
  initialSeq: number | null;
}) {
  const start =
    initialSeq === null
      ? events.length - 1
      : Math.max(
          0,
          events.findLastIndex((e) => e.seq <= initialSeq),
        );
  const [at, setAt] = useState(start);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(5);
  const checkpoints = useRef(new Map<number, RoomState>());

  const room = useMemo(() => {
    const cps = checkpoints.current;
    let from = -1;
    let state = emptyRoom();
    for (let c = Math.floor(at / CHECKPOINT) * CHECKPOINT - 1; c >= 0; c -= CHECKPOINT) {
      const hit = cps.get(c);
      if (hit) {
        from = c;
        state = hit;
        break;
      }
    }
    // Fold on from the nearest checkpoint, keeping new checkpoints on the way.
    for (let i = from + 1; i <= at;) {
      const stop = Math.min(at, Math.floor((i + CHECKPOINT) / CHECKPOINT) * CHECKPOINT - 1);
      state = applyEvents(state, events.slice(i, stop + 1));
      if ((stop + 1) % CHECKPOINT === 0) cps.set(stop, state);
      i = stop + 1;
    }
    return state;
  }, [at, events]);

  const here = events[at];
  const now = here ? Date.parse(here.ts) : Date.parse(run.created_at);

  useEffect(() => {
    if (!here) return;
    const url = new URL(window.location.href);
    url.searchParams.set("seq", String(here.seq));
    window.history.replaceState(null, "", url);
  }, [here]);

  useEffect(() => {
    if (!playing) return;
    if (at >= events.length - 1) {
      setPlaying(false);
      return;
    }
    const gap = Math.min(MAX_GAP_MS, Math.max(0, Date.parse(events[at + 1].ts) - Date.parse(events[at].ts)));
    const t = setTimeout(() => setAt((i) => Math.min(events.length - 1, i + 1)), gap / speed);
    return () => clearTimeout(t);
  }, [playing, at, speed, events]);

  const actions = useMemo<RoomActions>(
    () => ({
      receipts: room.receipts,
      presenceOf: () => undefined,
      send: noAction,
      forceFinish: noAction,
      canAct: false,
      asks: room.asks,
      answer: async () => ({ ok: false as const, error: "This is a replay: nothing can be answered from it." }),
      replayAt: now,
    }),
    [room.receipts, room.asks, now],
  );
  const typing = typingRuns(Object.values(room.runs), now, statusTtlSeconds * 1000, () => false);

  return (
    <RoomActionsContext.Provider value={actions}>
      <div className="flex min-h-0 flex-1 flex-col" data-testid="replay" data-seq={here?.seq ?? 0}>
        <section aria-label="Replay controls" className="border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
          <div className="flex flex-wrap items-center gap-3 text-sm">
            <Button size="sm" onClick={() => setPlaying(!playing)} data-testid="replay-play" aria-pressed={playing}>
              {playing ? "Pause" : "Play"}
            </Button>
            <label className="flex items-center gap-1 text-xs">
              Speed
              <Select
                compact
                value={speed}
                onChange={(e) => setSpeed(Number(e.target.value) as (typeof SPEEDS)[number])}
                data-testid="replay-speed"
                options={SPEEDS.map((s) => [String(s), `${s}×`] as const)}
              />
            </label>
            <Button
              size="sm"
              onClick={() => setAt((i) => Math.max(0, i - 1))}
              disabled={at <= 0}
              aria-label="One event back"
            >
              ←
            </Button>
            <Button
              size="sm"
              onClick={() => setAt((i) => Math.min(events.length - 1, i + 1))}
              disabled={at >= events.length - 1}
              aria-label="One event on"
            >
              →
            </Button>
            <span className="tabular-nums" data-testid="replay-position">
              seq {here?.seq ?? "—"} · {at + 1} of {events.length} · {here ? when(here.ts) : ""}
            </span>
            <span className={`text-xs ${muted}`}>{here ? here.type : ""}</span>
          </div>
          <label className="mt-2 block text-xs">
            <span className="sr-only">Seq to show</span>
            <input
              type="range"
              min={0}
              max={Math.max(0, events.length - 1)}
              value={at}
              onChange={(e) => {
                setPlaying(false);
                setAt(Number(e.target.value));
              }}
              className="w-full"
              data-testid="replay-scrubber"
              aria-valuetext={`seq ${here?.seq ?? 0}`}
            />
          </label>
        </section>
        <main className="flex min-h-0 flex-1 flex-col" aria-label="The room as it was">
          <h2 className="sr-only">The room as it was at seq {here?.seq ?? 0}</h2>
          <Timeline
            items={room.items}
            runs={room.runs}
            dir={dir}
            hasOlder={false}
            loadOlder={async () => 0}
            focusRun={null}
          />
          <TypingIndicators runs={typing} now={now} dir={dir} />
        </main>
      </div>
    </RoomActionsContext.Provider>
  );
}
