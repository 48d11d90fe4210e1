"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { forceFinish, postEvent, sendCommand } from "@/lib/browser/api";
import { answerAsk } from "@/lib/browser/ask-api";
import { RoomFeed, type FeedStatus } from "@/lib/browser/room-feed";
import { applyEvents, hasOlder, prependHistory, roomFromSnapshot, type PresenceView } from "@/lib/browser/room-state";
import type { RoomSnapshot, Run } from "@/lib/core/protocol";
import { DecisionsView } from "../room-state/decisions";
import { BudgetStrip } from "../room-state/budgets";
import { RoomBrief } from "../room-state/room-brief";
import { RoomPanel } from "../room-state/room-panel";
import { TaskBoard } from "../room-state/tasks";
import { RoomActionsContext, type RoomActions } from "./room-context";
import { useServerNow } from "@/lib/browser/use-now";
import { usePeople } from "@/lib/browser/use-people";
import { Composer } from "./composer";
import { Button } from "../ui/button";
import type { Directory } from "../../lib/core/views/names";
import { RoomHeader } from "./room-header";
import { StartRun } from "./start-run-form";
import { RunsRail } from "./runs-rail";
import { NotifyButton } from "../asks/notify-button";
import { Timeline } from "./timeline";
import { TypingIndicators, typingRuns } from "./typing-indicator";

export interface RoomViewProps {
  /** A member or owner may post and steer; a viewer watches and reviews. */
  canAct: boolean;
  workspaceId: string;
  workspaceName: string;
  spaceId: string;
  roomName: string;
  dir: Directory;
  /** The room as the page read it (its runs' asks too, [ASK4]): the same snapshot a join far behind is sent (lib/server/pages/room-snapshot.ts). */
  snapshot: RoomSnapshot;
  presence: Record<string, PresenceView>;
  statusTtlSeconds: number;
  presenceGraceSeconds: number;
  serverNow: number;
}

const fromSnapshot = (s: RoomSnapshot) => roomFromSnapshot(s.runs, s.events, s.receipts, s, s.asks);

/** The room: header, timeline, typing indicators, composer, and the active-runs rail. */
export function RoomView(p: RoomViewProps) {
  const [room, setRoom] = useState(() => fromSnapshot(p.snapshot));
  const [panelOpen, setPanelOpen] = useState(false);
  const [presence, setPresence] = useState<Record<string, PresenceView>>(p.presence);
  const [status, setStatus] = useState<FeedStatus>("connecting");
  const [present, setPresent] = useState<{ id: string; name: string }[]>([]);
  const [focusRun, setFocusRun] = useState<string | null>(null);
  // An owner may change this person's role while the room is open: the controls follow at once.
  const [canAct, setCanAct] = useState(p.canAct);
  const [railOpen, setRailOpen] = useState(false);
  const feed = useRef<RoomFeed | null>(null);
  const now = useServerNow(p.serverNow);

  useEffect(() => {
    const f = new RoomFeed({
      spaceId: p.spaceId,
      afterSeq: p.snapshot.head_seq,
      onEvents: (fresh) => setRoom((r) => applyEvents(r, fresh)),
      onSnapshot: (s) => setRoom(fromSnapshot(s)),
      onStatus: setStatus,
      onPeople: (people) => setPresent(people),
      onRole: (role) => setCanAct(role !== "viewer"),
      onPresence: (x) => setPresence((prev) => ({ ...prev, [x.harness_id]: { online: x.online, since: x.since } })),
    });
    feed.current = f;
    return () => f.stop();
    // The initial page seeds the feed once; later pages come through it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [p.spaceId]);

  const loadOlder = useCallback(async () => {
    const f = feed.current;
    const before = room.oldest?.seq ?? null;
    if (!f || before === null) return 0;
    const older = await f.older(before, 200);
    setRoom((r) => (r.oldest?.seq === before ? prependHistory(r, older) : r));
    return older.length;
  }, [room.oldest?.seq]);

  const send = useCallback(
    (text: string) => postEvent(p.workspaceId, { type: "message.posted", space_id: p.spaceId, text }, "msg"),
    [p.workspaceId, p.spaceId],
  );

  const graceMs = p.presenceGraceSeconds * 1000;
  // Past the grace without its harness, a run is unresponsive: no typing indicator, Force-finish offered.
  const unresponsive = useCallback(
    (r: Run) => {
      if (!r.harness_id || r.state === "finished") return false;
      const s = presence[r.harness_id];
      return !!s && !s.online && now - s.since >= graceMs;
    },
    [presence, now, graceMs],
  );
  const actions = useMemo<RoomActions>(
    () => ({
      receipts: room.receipts,
      presenceOf: (r) => (!r.harness_id ? undefined : unresponsive(r) ? "unresponsive" : "online"),
      send: sendCommand,
      canAct,
      forceFinish,
      asks: room.asks,
      answer: answerAsk,
    }),
    [room.receipts, room.asks, unresponsive, canAct],
  );
  const runs = useMemo(() => Object.values(room.runs), [room.runs]);
  // Runners that took a run after the page was drawn are named by their run.assigned.
  const runnerKey = runs
    .filter((r) => r.runner)
    .map((r) => `${r.runner!.id}=${r.runner!.name}`)
    .join("|");
  // People who answered asks after the page was drawn are named too ([ASK2]).
  const persons = usePeople(
    p.workspaceId,
    p.dir.persons,
    Object.values(room.asks).flatMap((as) => as.flatMap((a) => (a.answer ? [a.answer.person_id] : []))),
  );
  const dir = useMemo<Directory>(() => {
    const extra = Object.fromEntries(
      runs.filter((r) => r.runner && !p.dir.harnesses[r.runner.id]).map((r) => [r.runner!.id, r.runner!.name]),
    );
    return { persons, harnesses: Object.keys(extra).length ? { ...p.dir.harnesses, ...extra } : p.dir.harnesses };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [p.dir, runnerKey, persons]);
  const active = runs.filter((r) => r.state === "running" || r.state === "paused" || r.state === "queued");
  const typing = typingRuns(runs, now, p.statusTtlSeconds * 1000, unresponsive);

  // The room panel's parts each edit the same room, as far as this person may.
  const roomState = { workspaceId: p.workspaceId, spaceId: p.spaceId, canEdit: canAct };
  return (
    <RoomActionsContext.Provider value={actions}>
      <div className="flex h-dvh flex-col bg-white text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100">
        <RoomHeader
          runsHref={`/w/${p.workspaceId}/runs?space=${p.spaceId}`}
          roomName={p.roomName}
          workspaceName={p.workspaceName}
          status={status}
          active={active}
          present={present}
          actions={
            <>
              <a
                href={`/w/${p.workspaceId}/inbox`}
                data-testid="room-inbox-link"
                className="text-sm text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
              >
                Needs you
              </a>
              <NotifyButton />
              <BudgetStrip workspaceId={p.workspaceId} runs={runs} />
              <Button
                size="sm"
                data-testid="room-state-open"
                aria-expanded={panelOpen}
                onClick={() => setPanelOpen(!panelOpen)}
              >
                Intent &amp; outcome{room.room.revision ? ` · r${room.room.revision}` : ""}
              </Button>
              {canAct ? (
                <StartRun spaceId={p.spaceId} workspaceId={p.workspaceId} />
              ) : (
                <span
                  data-testid="viewer-badge"
                  className="rounded-full bg-zinc-100 px-2 py-0.5 text-xs text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300"
                >
                  viewer
                </span>
              )}
            </>
          }
        />
        <div className="relative flex min-h-0 flex-1">
          <main className="flex min-w-0 flex-1 flex-col">
            <Timeline
              items={room.items}
              runs={room.runs}
              dir={dir}
              hasOlder={hasOlder(room)}
              loadOlder={loadOlder}
              focusRun={focusRun}
            />
            <TypingIndicators runs={typing} now={now} dir={dir} />
            <div className="border-t border-zinc-200 px-4 py-1.5 lg:hidden dark:border-zinc-800">
              <Button tone="link" aria-expanded={railOpen} onClick={() => setRailOpen(!railOpen)} className="text-xs">
                {railOpen ? "Hide" : "Show"} active runs ({active.length})
              </Button>
              {railOpen && <RunsRail runs={active} dir={dir} onPick={setFocusRun} />}
            </div>
            {canAct && <Composer roomName={p.roomName} draftKey={`chips-draft:${p.spaceId}`} onSend={send} />}
          </main>
          {panelOpen ? (
            <RoomPanel onClose={() => setPanelOpen(false)}>
              <RoomBrief {...roomState} room={room.room} dir={dir} />
              <DecisionsView {...roomState} decisions={room.decisions} dir={dir} />
              <TaskBoard {...roomState} tasks={room.tasks} runs={runs} />
            </RoomPanel>
          ) : (
            <div className="hidden w-72 shrink-0 border-l border-zinc-200 lg:block dark:border-zinc-800">
              <RunsRail runs={active} dir={dir} onPick={setFocusRun} />
            </div>
          )}
        </div>
      </div>
    </RoomActionsContext.Provider>
  );
}
