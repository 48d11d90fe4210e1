"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Verdict, type StoredEvent } from "@/lib/core/protocol";
import { annotate } from "@/lib/browser/review-api";
import { actorName, type Directory } from "@/lib/core/views/names";
import { Markdown } from "@/components/ui/markdown";
import { button, field, muted, VERDICT_TEXT, when } from "./format";

type Annotated = Extract<StoredEvent, { type: "run.annotated" }>;

const targetText = (t: Annotated["target"]) =>
  t.kind === "event" ? `event #${t.seq}` : t.kind === "diff" ? `${t.path}:${t.line}` : "the run";

/** The run's annotations, oldest first, and (for members and owners) a form to add one ([ANN1]). */
export function Annotations({
  runId,
  events,
  dir,
  files,
  canAct,
}: {
  runId: string;
  events: StoredEvent[];
  dir: Directory;
  files: string[];
  canAct: boolean;
}) {
  const router = useRouter();
  const notes = events.filter((e): e is Annotated => e.type === "run.annotated");
  const [verdict, setVerdict] = useState<Verdict | "">("");
  const [comment, setComment] = useState("");
  const [kind, setKind] = useState<"run" | "event" | "diff">("run");
  const [seq, setSeq] = useState("");
  const [path, setPath] = useState(files[0] ?? "");
  const [line, setLine] = useState("1");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <div>
      {notes.length === 0 ? (
        <p className={`text-sm ${muted}`}>No annotations yet.</p>
      ) : (
        <ol className="space-y-3">
          {notes.map((n) => (
            <li
              key={n.seq}
              data-testid="annotation"
              data-verdict={n.verdict ?? ""}
              data-target={targetText(n.target)}
              className="text-sm"
            >
              <p className="text-xs">
                <span className="font-semibold">{actorName(dir, n.actor)}</span>{" "}
                <span className={muted}>
                  on {targetText(n.target)} · {when(n.ts)}
                </span>
                {n.verdict && <span className="ml-2 font-medium">{VERDICT_TEXT[n.verdict]}</span>}
              </p>
              {n.comment && <Markdown text={n.comment} />}
            </li>
          ))}
        </ol>
      )}
      {canAct && (
        <form
          className="mt-3 space-y-2"
          aria-label="Annotate this run"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            const target =
              kind === "event"
                ? { kind, seq: Number(seq) }
                : kind === "diff"
                  ? { kind, path, line: Number(line) }
                  : { kind };
            const r = await annotate(runId, {
              ...(verdict ? { verdict } : {}),
              ...(comment.trim() ? { comment: comment.trim() } : {}),
              target,
            });
            setBusy(false);
            if (!r.ok) return setError(r.detail);
            setError(null);
            setComment("");
            setVerdict("");
            router.refresh();
          }}
        >
          <div className="flex flex-wrap items-end gap-2">
            <label className="flex flex-col gap-0.5 text-xs font-medium">
              Verdict
              <select
                className={field}
                value={verdict}
                onChange={(e) => setVerdict(Verdict.safeParse(e.target.value).data ?? "")}
                data-testid="annotation-verdict"
              >
                <option value="">none (a comment)</option>
                <option value="approved">approved</option>
                <option value="needs_work">needs work</option>
                <option value="rejected">rejected</option>
              </select>
            </label>
            <label className="flex flex-col gap-0.5 text-xs font-medium">
              About
              <select
                className={field}
                value={kind}
                onChange={(e) => setKind(e.target.value as typeof kind)}
                data-testid="annotation-target"
              >
                <option value="run">the whole run</option>
                <option value="event">one event (by seq)</option>
                {files.length > 0 && <option value="diff">a line of the diff</option>}
              </select>
            </label>
            {kind === "event" && (
              <label className="flex flex-col gap-0.5 text-xs font-medium">
                Seq
                <input
                  className={field}
                  type="number"
                  min={1}
                  value={seq}
                  onChange={(e) => setSeq(e.target.value)}
                  data-testid="annotation-seq"
                />
              </label>
            )}
            {kind === "diff" && (
              <>
                <label className="flex flex-col gap-0.5 text-xs font-medium">
                  File
                  <select className={field} value={path} onChange={(e) => setPath(e.target.value)}>
                    {files.map((f) => (
                      <option key={f} value={f}>
                        {f}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="flex flex-col gap-0.5 text-xs font-medium">
                  Line
                  <input
                    className={field}
                    type="number"
                    min={1}
                    value={line}
                    onChange={(e) => setLine(e.target.value)}
                  />
                </label>
              </>
            )}
          </div>
          <label className="flex flex-col gap-0.5 text-xs font-medium">
            Comment (markdown)
            <textarea
              className={`${field} min-h-16`}
              value={comment}
              onChange={(e) => setComment(e.target.value)}
              data-testid="annotation-comment"
            />
          </label>
          <button
            type="submit"
            className={button}
            disabled={busy || (!verdict && !comment.trim())}
            data-testid="annotation-send"
          >
            Annotate
          </button>
          {error && (
            <p role="alert" className="text-xs text-red-700 dark:text-red-400">
              {error}
            </p>
          )}
        </form>
      )}
    </div>
  );
}
