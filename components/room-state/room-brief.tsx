"use client";

import { useState } from "react";
import type { RoomRevision } from "@/lib/core/protocol";
import { saveRoom } from "@/lib/browser/room-api";
import { Markdown } from "../ui/markdown";
import { actorName, type Directory } from "../../lib/core/views/names";
import { RoomHistory } from "./room-history";
import { revisionText, TextDiff } from "./text-diff";

const area =
  "min-h-24 w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 font-mono text-sm focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900";
const button =
  "rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-60";
const primary = `${button} bg-blue-700 text-white hover:bg-blue-800`;
const plain = `${button} border border-zinc-300 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800`;

interface Draft {
  intent: string;
  outcome: string;
  /** The revision the draft was started from: the save makes the one after it ([ROOM1]). */
  base: number;
}

/**
 * The room's intent (what we want) and outcome (what done looks like), in markdown, at its
 * current revision; people edit them here. A save based on an older revision is refused by
 * the server with the newer text: the person sees theirs beside their own draft (and the
 * diff), keeps editing, and saves on top — nothing is lost either way ([ROOM1]).
 */
export function RoomBrief({
  workspaceId,
  spaceId,
  room,
  dir,
  canEdit = true,
}: {
  workspaceId: string;
  spaceId: string;
  room: RoomRevision;
  dir: Directory;
  canEdit?: boolean;
}) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const [conflict, setConflict] = useState<RoomRevision | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [history, setHistory] = useState(false);

  async function save(base: number) {
    if (!draft || saving) return;
    setSaving(true);
    const r = await saveRoom(workspaceId, spaceId, base, draft.intent, draft.outcome);
    setSaving(false);
    if (r.ok) {
      setDraft(null);
      setConflict(null);
      setError(null);
    } else if ("conflict" in r) {
      setConflict(r.conflict);
      setDraft({ ...draft, base: r.conflict.revision });
    } else setError(r.error);
  }

  const newer = draft && !conflict && room.revision > draft.base ? room : null;
  return (
    <section
      data-testid="room-brief"
      data-revision={room.revision}
      aria-label="Intent and outcome"
      className="space-y-3"
    >
      <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="room-revision-meta">
        {room.revision === 0
          ? "Nobody has written the room's intent yet."
          : `Revision ${room.revision} · ${actorName(dir, room.actor)} · ${room.ts ? new Date(room.ts).toLocaleString() : ""}`}
      </p>
      {!draft ? (
        <>
          <div>
            <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Intent</h3>
            <div data-testid="room-intent" className="text-sm">
              {room.intent ? <Markdown text={room.intent} /> : <p className="text-zinc-500">—</p>}
            </div>
          </div>
          <div>
            <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Outcome</h3>
            <div data-testid="room-outcome" className="text-sm">
              {room.outcome ? <Markdown text={room.outcome} /> : <p className="text-zinc-500">—</p>}
            </div>
          </div>
          <div className="flex gap-2">
            {canEdit && (
              <button
                type="button"
                data-testid="room-edit"
                className={primary}
                onClick={() => setDraft({ intent: room.intent, outcome: room.outcome, base: room.revision })}
              >
                Edit
              </button>
            )}
            <button
              type="button"
              data-testid="room-history-toggle"
              aria-expanded={history}
              className={plain}
              onClick={() => setHistory(!history)}
            >
              {history ? "Hide history" : "History"}
            </button>
          </div>
        </>
      ) : (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            void save(draft.base);
          }}
        >
          <label className="block text-sm font-medium" htmlFor="room-intent-input">
            Intent <span className="font-normal text-zinc-600 dark:text-zinc-400">(what we want, markdown)</span>
          </label>
          <textarea
            id="room-intent-input"
            data-testid="room-intent-input"
            className={area}
            value={draft.intent}
            onChange={(e) => setDraft({ ...draft, intent: e.target.value })}
          />
          <label className="block text-sm font-medium" htmlFor="room-outcome-input">
            Outcome <span className="font-normal text-zinc-600 dark:text-zinc-400">(what done looks like)</span>
          </label>
          <textarea
            id="room-outcome-input"
            data-testid="room-outcome-input"
            className={area}
            value={draft.outcome}
            onChange={(e) => setDraft({ ...draft, outcome: e.target.value })}
          />
          {newer && (
            <p data-testid="room-newer" role="status" className="text-sm text-amber-800 dark:text-amber-300">
              {actorName(dir, newer.actor)} saved revision {newer.revision} while you were editing: saving will show you
              theirs first.
            </p>
          )}
          {conflict && (
            <div
              data-testid="room-conflict"
              data-revision={conflict.revision}
              role="alert"
              className="space-y-2 rounded-md border border-amber-400 bg-amber-50 p-3 dark:border-amber-600 dark:bg-amber-950"
            >
              <p className="text-sm">
                {actorName(dir, conflict.actor)} saved revision {conflict.revision} while you were editing. Your text is
                still here; theirs is below. Merge what you want, then save on top of theirs — or keep theirs.
              </p>
              <div data-testid="room-conflict-theirs" className="rounded bg-white p-2 text-sm dark:bg-zinc-900">
                <Markdown text={revisionText(conflict)} />
              </div>
              <TextDiff
                before={revisionText(conflict)}
                after={revisionText(draft)}
                label="From their revision to your draft"
              />
            </div>
          )}
          {error && (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {error}
            </p>
          )}
          <div className="flex flex-wrap gap-2">
            <button type="submit" data-testid="room-save" disabled={saving} className={primary}>
              {conflict ? `Save mine on top of revision ${conflict.revision}` : "Save"}
            </button>
            {conflict && (
              <button
                type="button"
                data-testid="room-keep-theirs"
                className={plain}
                onClick={() => {
                  setDraft(null);
                  setConflict(null);
                }}
              >
                Keep theirs
              </button>
            )}
            <button
              type="button"
              data-testid="room-cancel"
              className={plain}
              onClick={() => {
                setDraft(null);
                setConflict(null);
                setError(null);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
      {history && !draft && <RoomHistory spaceId={spaceId} head={room.revision} dir={dir} />}
    </section>
  );
}
