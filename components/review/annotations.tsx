"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Verdict, type StoredEvent } from "@/lib/core/protocol";
import { annotate } from "@/lib/browser/review-api";
import { actorName, type Directory } from "@/lib/core/views/names";
import { Markdown } from "@/components/ui/markdown";
import { Button } from "../ui/button";
import { Field, Input, Select, TextArea } from "../ui/field";
import { Alert } from "../ui/alert";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";
import { muted, VERDICT_TEXT, when } from "./format";

type Annotated = Extract<StoredEvent, { type: "run.annotated" }>;

const VERDICTS = [["", "none (a comment)"], ...Object.entries(VERDICT_TEXT)] as const;
const TARGETS = [
  ["run", "the whole run"],
  ["event", "one event (by seq)"],
  ["diff", "a line of the diff"],
] as const;

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
  const send = useAction((body: Parameters<typeof annotate>[1]) => annotate(runId, body), {
    fields: ["verdict", "target", "comment"],
    onDone: () => {
      setComment("");
      setVerdict("");
      router.refresh();
    },
  });
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
        <Form
          action={send}
          className="mt-3 space-y-2"
          aria-label="Annotate this run"
          onSubmit={() =>
            send.run({
              ...(verdict ? { verdict } : {}),
              ...(comment.trim() ? { comment: comment.trim() } : {}),
              target:
                kind === "event"
                  ? { kind, seq: Number(seq) }
                  : kind === "diff"
                    ? { kind, path, line: Number(line) }
                    : { kind },
            })
          }
        >
          <div className="flex flex-wrap items-end gap-2">
            <Field label="Verdict" compact error={send.fields.verdict} name="verdict">
              <Select
                value={verdict}
                onChange={(e) => setVerdict(Verdict.safeParse(e.target.value).data ?? "")}
                data-testid="annotation-verdict"
                options={VERDICTS}
              />
            </Field>
            <Field label="About" compact error={send.fields.target} name="target">
              <Select
                value={kind}
                onChange={(e) => setKind(e.target.value as typeof kind)}
                data-testid="annotation-target"
                options={files.length > 0 ? TARGETS : TARGETS.slice(0, 2)}
              />
            </Field>
            {kind === "event" && (
              <Field label="Seq" compact>
                <Input
                  type="number"
                  min={1}
                  value={seq}
                  onChange={(e) => setSeq(e.target.value)}
                  data-testid="annotation-seq"
                />
              </Field>
            )}
            {kind === "diff" && (
              <>
                <Field label="File" compact>
                  <Select value={path} onChange={(e) => setPath(e.target.value)} options={files.map((f) => [f, f])} />
                </Field>
                <Field label="Line" compact>
                  <Input type="number" min={1} value={line} onChange={(e) => setLine(e.target.value)} />
                </Field>
              </>
            )}
          </div>
          <Field label="Comment" note="markdown" compact error={send.fields.comment} name="comment">
            <TextArea
              className="min-h-16 w-full"
              value={comment}
              onChange={(e) => setComment(e.target.value)}
              data-testid="annotation-comment"
            />
          </Field>
          <Button type="submit" busy={send.busy} disabled={!verdict && !comment.trim()} data-testid="annotation-send">
            Annotate
          </Button>
          <Alert className="text-xs">{send.error}</Alert>
        </Form>
      )}
    </div>
  );
}
