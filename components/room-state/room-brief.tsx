"use client";

import { useState } from "react";
import type { RoomRevision } from "@/lib/core/protocol";
import { revisionConflict, saveRoom } from "@/lib/browser/room-api";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextArea } from "../ui/field";
import { Form } from "../ui/form";
import { Markdown } from "../ui/markdown";
import { useAction } from "../ui/use-action";
import { actorName, type Directory } from "../../lib/core/views/names";
import { RoomHistory } from "./room-history";
import { revisionText, TextDiff } from "./text-diff";

/** The room's two texts, each shown and edited in its own box: the body field, its label and its note. */
const TEXTS = [
  ["intent", "Intent", "what we want, markdown"],
  ["outcome", "Outcome", "what done looks like"],
] as const;

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
  // The newest refusal's revision stays shown while the person merges, until they save or leave.
  const [conflict, setConflict] = useState<RoomRevision | null>(null);
  const [history, setHistory] = useState(false);
  const save = useAction((d: Draft) => saveRoom(workspaceId, spaceId, d.base, d.intent, d.outcome), {
    fields: ["intent", "outcome"],
    unreachable: "Could not reach Chips; your text is kept here.",
    refused: (s) => `Could not save (${s}).`,
    onDone: () => close(),
    // On a revision conflict ([ROOM1]) the draft goes on top of the revision that won.
    onRefused: (e, d) => {
      const theirs = revisionConflict(e);
      if (theirs) {
        setConflict(theirs);
        setDraft({ ...d, base: theirs.revision });
      }
    },
  });
  const close = () => {
    setDraft(null);
    setConflict(null);
    save.reset();
  };

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
          {TEXTS.map(([f, label]) => (
            <div key={f}>
              <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
                {label}
              </h3>
              <div data-testid={`room-${f}`} className="text-sm">
                {room[f] ? <Markdown text={room[f]} /> : <p className="text-zinc-500">—</p>}
              </div>
            </div>
          ))}
          <div className="flex gap-2">
            {canEdit && (
              <Button
                tone="primary"
                data-testid="room-edit"
                onClick={() => setDraft({ intent: room.intent, outcome: room.outcome, base: room.revision })}
              >
                Edit
              </Button>
            )}
            <Button data-testid="room-history-toggle" aria-expanded={history} onClick={() => setHistory(!history)}>
              {history ? "Hide history" : "History"}
            </Button>
          </div>
        </>
      ) : (
        <Form action={save} className="space-y-2" onSubmit={() => save.run(draft)}>
          {TEXTS.map(([f, label, note]) => (
            <Field key={f} label={label} note={note} error={save.fields[f]} name={f}>
              <TextArea
                data-testid={`room-${f}-input`}
                className="min-h-24 font-mono"
                value={draft[f]}
                onChange={(e) => setDraft({ ...draft, [f]: e.target.value })}
              />
            </Field>
          ))}
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
          <Alert>{revisionConflict(save.refusal) ? null : save.error}</Alert>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" tone="primary" data-testid="room-save" busy={save.busy}>
              {conflict ? `Save mine on top of revision ${conflict.revision}` : "Save"}
            </Button>
            {conflict && (
              <Button data-testid="room-keep-theirs" onClick={close}>
                Keep theirs
              </Button>
            )}
            <Button data-testid="room-cancel" onClick={close}>
              Cancel
            </Button>
          </div>
        </Form>
      )}
      {history && !draft && <RoomHistory spaceId={spaceId} head={room.revision} dir={dir} />}
    </section>
  );
}
