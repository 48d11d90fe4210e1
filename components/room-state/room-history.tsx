"use client";

import { useEffect, useState } from "react";
import type { RoomRevision } from "@/lib/core/protocol";
import { ApiError, roomRevisions } from "@/lib/browser/api";
import { placeRefusal } from "@/lib/browser/refusal";
import { Alert } from "../ui/alert";
import { Select } from "../ui/field";
import { actorName, type Directory } from "../../lib/core/views/names";
import { revisionText, TextDiff } from "./text-diff";

/** Every revision of the room (who, when), and the diff between any two of them. */
export function RoomHistory({ spaceId, head, dir }: { spaceId: string; head: number; dir: Directory }) {
  const [revisions, setRevisions] = useState<RoomRevision[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [from, setFrom] = useState(0);
  const [to, setTo] = useState(head);

  // Read again when the room moves on, so the newest revision is always there to compare.
  useEffect(() => {
    let live = true;
    roomRevisions(spaceId).then(
      (r) => live && (setRevisions(r), setError(null)),
      (e: unknown) => {
        if (!(e instanceof ApiError)) throw e;
        if (live) setError(placeRefusal(e, [], { refused: (s) => `Could not read the room's history (${s}).` }).line);
      },
    );
    return () => {
      live = false;
    };
  }, [spaceId, head]);
  useEffect(() => setTo(head), [head]);

  if (error) return <Alert>{error}</Alert>;
  if (!revisions) return <p className="text-sm text-zinc-600 dark:text-zinc-400">Loading the history…</p>;
  const empty = { intent: "", outcome: "" };
  const at = (n: number) => (n === 0 ? empty : (revisions.find((r) => r.revision === n) ?? empty));
  const options = [0, ...revisions.map((r) => r.revision)];
  return (
    <div data-testid="room-history" className="space-y-2">
      <ol className="max-h-40 space-y-0.5 overflow-y-auto text-sm">
        {[...revisions].reverse().map((r) => (
          <li key={r.revision} data-testid="room-revision" data-revision={r.revision}>
            <span className="font-medium">Revision {r.revision}</span> · {actorName(dir, r.actor)} ·{" "}
            <time dateTime={r.ts ?? undefined}>{r.ts ? new Date(r.ts).toLocaleString() : ""}</time>
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <RevisionPicker label="Compare" testId="room-diff-from" options={options} value={from} onChange={setFrom} />
        <RevisionPicker label="with" testId="room-diff-to" options={options} value={to} onChange={setTo} />
      </div>
      <TextDiff
        before={revisionText(at(from))}
        after={revisionText(at(to))}
        label={`Changes from revision ${from} to revision ${to}`}
      />
    </div>
  );
}

function RevisionPicker({
  label,
  testId,
  options,
  value,
  onChange,
}: {
  label: string;
  testId: string;
  options: number[];
  value: number;
  onChange: (n: number) => void;
}) {
  return (
    <label>
      {label}{" "}
      <Select
        compact
        data-testid={testId}
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
        options={options.map((n) => [String(n), n === 0 ? "empty (0)" : `revision ${n}`])}
      />
    </label>
  );
}
