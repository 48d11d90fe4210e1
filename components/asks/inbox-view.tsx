"use client";

import { useCallback, useEffect, useMemo, useState } from "react";
import { answerAsk, inboxAsks } from "@/lib/browser/ask-api";
import { askFeed } from "@/lib/browser/ask-feed";
import { usePeople } from "@/lib/browser/use-people";
import { clipUtf8, type InboxAnswer } from "@/lib/core/protocol";
import { foldAsks, waitsForPerson } from "@/lib/core/projection/asks";
import { actorName, type Directory } from "../../lib/core/views/names";
import { Alert } from "../ui/alert";
import { AskCard } from "./ask-card";
import { NotifyButton } from "./notify-button";

type Item = InboxAnswer["asks"][number];

/**
 * The workspace's inbox ([ASK4]): every ask waiting for a person across its rooms, oldest
 * first, answered in place. Live: a new ask brings the list again; any other ask event is
 * folded into the card it concerns (the same fold as the room's), so an ask answered here or
 * elsewhere shows who answered and stays until the page is left.
 */
export function InboxView({
  workspaceId,
  initial,
  dir,
  canAct,
}: {
  workspaceId: string;
  initial: Item[];
  dir: Directory;
  canAct: boolean;
}) {
  const [items, setItems] = useState<Item[]>(initial);
  const [problem, setProblem] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      const open = await inboxAsks(workspaceId);
      setItems((held) => {
        // What this page still shows of the asks that left the list keeps its place, settled.
        const ids = new Set(open.map((a) => a.ask_id));
        const settled = held.filter((a) => !ids.has(a.ask_id) && !waitsForPerson(a));
        return [...settled, ...open].sort((x, y) => x.seq - y.seq);
      });
      setProblem(null);
    } catch {
      setProblem("Could not read the inbox; it updates again when Chips answers.");
    }
  }, [workspaceId]);

  useEffect(
    () =>
      askFeed.listen({
        event: (e) => {
          if (e.workspace_id !== workspaceId) return;
          if (e.type === "run.asked") return void reload();
          setItems((held) => foldAsks(null, null, held, e).asks as Item[]);
        },
        // Back after a disconnection: anything may have happened meanwhile.
        status: (live) => void (live && reload()),
      }),
    [workspaceId, reload],
  );

  const waiting = useMemo(() => items.filter(waitsForPerson).length, [items]);
  const persons = usePeople(
    workspaceId,
    dir.persons,
    items.flatMap((a) => (a.answer ? [a.answer.person_id] : [])),
  );
  return (
    <>
      <div className="mt-2 flex flex-wrap items-center gap-3">
        <p data-testid="inbox-count" data-count={waiting} className="text-sm text-zinc-700 dark:text-zinc-300">
          {waiting === 0 ? "Nothing waits for you." : `${waiting} waiting for a person`}
        </p>
        <NotifyButton />
      </div>
      <Alert className="mt-2 text-sm">{problem}</Alert>
      <ul aria-label="Asks" className="mt-4 space-y-3">
        {items.map((a) => (
          <li key={a.ask_id} data-inbox-ask={a.ask_id}>
            <AskCard
              ask={a}
              asker={actorName(dir, a.actor)}
              personName={(id) => persons[id] ?? "someone"}
              canAct={canAct}
              answer={(body) => answerAsk(a.run_id, a.ask_id, body)}
              context={
                <a
                  href={`/w/${workspaceId}/r/${a.space_id}#${a.ask_id}`}
                  data-testid="inbox-room"
                  className="text-xs text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-blue-300"
                >
                  # {a.space_name} · {clipUtf8(a.run_goal, 120)}
                </a>
              }
            />
          </li>
        ))}
      </ul>
    </>
  );
}
