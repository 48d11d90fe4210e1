"use client";

import type { TimelineItem } from "@/lib/browser/room-state";
import { actorName, type Directory } from "../../lib/core/views/names";
import { AskCard } from "../asks/ask-card";
import { useRoomActions } from "./room-context";

/** An ask in the room's timeline ([ASK4]): its card, drawn from the run's asks as the room folds them. */
export function RoomAsk({ item, dir }: { item: Extract<TimelineItem, { kind: "ask" }>; dir: Directory }) {
  const actions = useRoomActions();
  const ask = actions?.asks[item.runId]?.find((a) => a.ask_id === item.askId);
  if (!actions || !ask) return <p className="text-sm text-zinc-600 dark:text-zinc-400">An ask ({item.askId}).</p>;
  return (
    <AskCard
      ask={ask}
      asker={actorName(dir, item.actor)}
      personName={(id) => dir.persons[id] ?? "someone"}
      canAct={actions.canAct}
      now={actions.replayAt}
      answer={(body) => actions.answer(item.runId, item.askId, body)}
    />
  );
}
