"use client";

import { useEffect, useState } from "react";
import { DEFAULT_PERMISSION_OPTIONS, type Ask, type AskOption } from "@/lib/core/protocol";
import { answerLabel, expiredText, expiryNote, unansweredText, waitsForPerson } from "@/lib/core/projection/asks";
import type { AnswerInput, AnswerResult } from "@/lib/browser/ask-api";
import { took } from "../review/format";
import { Alert } from "../ui/alert";
import { Button, type ButtonProps } from "../ui/button";
import { Field, Input } from "../ui/field";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";

const time = (ts: string) => new Date(ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** An option's button by what it decides: allowing is green, denying red, a question's options plain. */
const TONE: Record<NonNullable<AskOption["decision"]> | "option", ButtonProps["tone"]> = {
  allow: "success",
  allow_for_run: "successOutline",
  deny: "danger",
  option: "secondary",
};

const CLOSED: Record<string, string> = {
  expired: "expired",
  answered_elsewhere: "answered at the agent",
  run_finished: "the run finished",
  cancelled: "withdrawn by the agent",
};

/**
 * What an applied receipt means, where it is less than "applied": `chips connect claude`'s
 * hook reports it once it handed the answer to Claude Code, which then runs the call (or not).
 */
const APPLIED: Record<string, string> = { "claude-hook": "the answer reached Claude Code" };

export interface AskCardProps {
  ask: Ask;
  /** Who asked: the harness (or agent) by name. */
  asker: string;
  /** A person's name by id (who answered). */
  personName: (id: string) => string;
  /** A member or owner answers; a viewer only reads. */
  canAct: boolean;
  /**
   * A replay's clock, to judge expiry by: the card is history at that moment, which nobody
   * answers (live, the wall clock when left out).
   */
  now?: number;
  answer: (body: AnswerInput) => Promise<AnswerResult>;
  /** Where the ask's run is (the inbox links each ask to its room). */
  context?: React.ReactNode;
}

/**
 * One ask ([ASK1]–[ASK6], [ASK8]): what the agent wants to do (or asks), its buttons while it waits for
 * a person — Allow / Allow for this run / Deny, or the question's options and a text box —
 * and afterwards who answered what, when, how long it took, and what the agent did with it.
 * A second person's press is told who got there first. Every control is a labelled button or
 * field, in tab order.
 */
export function AskCard({ ask, asker, personName, canAct, now, answer, context }: AskCardProps) {
  const [text, setText] = useState("");
  const [note, setNote] = useState("");
  // The answer comes back as a result, not thrown: a second press is told who answered first.
  const action = useAction(answer, {
    onDone: (out) => {
      if (out.ok) return;
      if ("first" in out) action.refuse(`${out.first.name} answered ${out.first.label} at ${time(out.first.at)}`);
      else if ("closed" in out) action.refuse(`This ask is closed: ${CLOSED[out.closed.reason] ?? out.closed.reason}.`);
      else action.refuse(out.error);
    },
  });
  const r = ask.request;
  const expired = useExpired(ask, now);
  const open = waitsForPerson(ask) && !expired;
  const replay = now !== undefined;
  const what = r.kind === "permission" ? `${r.tool}: ${r.summary}` : (r.question ?? "");

  const send = (body: AnswerInput) => void action.run(body);
  const options: AskOption[] =
    r.kind === "permission" ? (r.options?.length ? r.options : DEFAULT_PERMISSION_OPTIONS) : (r.options ?? []);

  return (
    <section
      data-testid="ask-card"
      data-ask-id={ask.ask_id}
      data-ask-state={expired ? "expired" : ask.state}
      aria-label={`${asker} ${r.kind === "permission" ? "asks permission" : "asks"}: ${what}`}
      className={`rounded-lg border p-3 ${open ? "border-amber-400 bg-amber-50 dark:border-amber-700 dark:bg-amber-950/40" : "border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"}`}
    >
      <p className="flex flex-wrap items-baseline gap-x-2 text-sm">
        <span className="font-semibold">{asker}</span>
        <span>{r.kind === "permission" ? "asks permission" : "asks you"}</span>
        {open && (
          <span className="rounded-full bg-amber-200 px-2 py-0.5 text-xs font-medium text-amber-950 dark:bg-amber-800 dark:text-amber-50">
            needs you
          </span>
        )}
        <time dateTime={ask.created_at} className="text-xs text-zinc-600 dark:text-zinc-400">
          {time(ask.created_at)}
        </time>
        {context}
      </p>
      {r.kind === "permission" ? (
        <div className="mt-1.5">
          <p className="text-[15px]">
            <code className="rounded bg-zinc-100 px-1 py-0.5 text-xs dark:bg-zinc-800">{r.tool}</code>{" "}
            <span data-testid="ask-summary">{r.summary}</span>
          </p>
          {r.command && r.command !== r.summary && (
            <pre className="mt-1.5 max-h-40 overflow-auto whitespace-pre-wrap break-words rounded bg-zinc-100 p-2 text-xs dark:bg-zinc-800">
              {r.command}
            </pre>
          )}
          {r.paths?.length ? (
            <p className="mt-1 break-words text-xs text-zinc-600 dark:text-zinc-400">
              {r.paths.length === 1 ? "Path" : "Paths"}: {r.paths.join(", ")}
            </p>
          ) : null}
        </div>
      ) : (
        <p data-testid="ask-question" className="mt-1.5 whitespace-pre-wrap break-words text-[15px]">
          {r.question}
        </p>
      )}
      {open && canAct && (
        <div role="group" aria-label="Answer" className="mt-2.5 space-y-2">
          <div className="flex flex-wrap gap-2">
            {options.map((o) => (
              <Button
                key={o.id}
                data-testid="ask-option"
                data-option-id={o.id}
                {...(o.decision ? { "data-decision": o.decision } : {})}
                title={o.description}
                disabled={action.busy}
                tone={TONE[o.decision ?? "option"]}
                onClick={() =>
                  send(
                    r.kind === "permission"
                      ? { option_id: o.id, ...(note.trim() ? { note: note.trim() } : {}) }
                      : { option_id: o.id },
                  )
                }
              >
                {o.label}
              </Button>
            ))}
          </div>
          {r.kind === "permission" && (
            <Field label="Note for the agent" note="optional, e.g. why not" compact>
              <Input
                data-testid="ask-note"
                value={note}
                maxLength={2000}
                onChange={(e) => setNote(e.target.value)}
                className="block w-full"
              />
            </Field>
          )}
          {r.kind === "question" && r.free_text && (
            <Form action={action} className="flex gap-2" onSubmit={() => text.trim() && send({ text: text.trim() })}>
              <Field label="Your answer" hideLabel className="min-w-0 flex-1">
                <Input
                  data-testid="ask-text"
                  value={text}
                  maxLength={4000}
                  placeholder="Type an answer…"
                  onChange={(e) => setText(e.target.value)}
                />
              </Field>
              <Button type="submit" data-testid="ask-send" disabled={!text.trim()} busy={action.busy}>
                Send
              </Button>
            </Form>
          )}
        </div>
      )}
      {open && (replay || !canAct) && (
        <p data-testid="ask-waiting" className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
          {replay
            ? "Waiting for an answer at this point of the replay."
            : "Waiting for a member to answer (viewers watch)."}
        </p>
      )}
      <Outcome ask={ask} expired={expired} personName={personName} />
      {ask.expires_at && open && (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          Unanswered by <time dateTime={ask.expires_at}>{time(ask.expires_at)}</time>: {unansweredText(ask)}.
        </p>
      )}
      <Alert testId="ask-refusal" className="mt-2 text-sm font-medium">
        {action.error}
      </Alert>
    </section>
  );
}

/**
 * Whether the ask waits past its expiry ([ASK6]): by `now` when given (a replay), else by the
 * wall clock, with one timer to redraw the card when the time comes (no ticking).
 */
function useExpired(ask: Ask, now: number | undefined): boolean {
  const at = waitsForPerson(ask) && ask.expires_at ? Date.parse(ask.expires_at) : null;
  const [passed, setPassed] = useState(() => at !== null && at <= Date.now());
  useEffect(() => {
    if (at === null || now !== undefined) return;
    const left = at - Date.now();
    if (left <= 0) return setPassed(true);
    setPassed(false);
    const t = setTimeout(() => setPassed(true), Math.min(left, 2 ** 31 - 1));
    return () => clearTimeout(t);
  }, [at, now]);
  if (at === null) return false;
  return now !== undefined ? at <= now : passed;
}

/** After a person's answer: who, what, when, how long it took and what the agent did; or why the ask closed. */
function Outcome({ ask, expired, personName }: { ask: Ask; expired: boolean; personName: (id: string) => string }) {
  const a = ask.answer;
  if (expired)
    return (
      <p data-testid="ask-outcome" className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
        Expired: {unansweredText(ask)}.
      </p>
    );
  if (ask.state === "closed")
    return (
      <p data-testid="ask-outcome" className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
        Closed: {CLOSED[ask.closed_reason ?? ""] ?? ask.closed_reason}
        {ask.closed_reason === "expired"
          ? ` — ${expiredText(ask)}`
          : ask.applied_default
            ? ` (${ask.applied_default} applied)`
            : ""}
        {ask.reason && ask.reason !== expiryNote(ask) ? ` — ${ask.reason}` : ""}
      </p>
    );
  if (!a) return null;
  const receipt =
    ask.state === "answered"
      ? "the agent has not said it applied it yet"
      : ask.state === "applied"
        ? (APPLIED[ask.request.source ?? ""] ?? "applied by the agent")
        : `not applied: ${ask.reason ?? "rejected"}`;
  return (
    <p data-testid="ask-outcome" data-receipt={ask.state} className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
      <span data-testid="ask-answered-by" className="font-medium">
        {personName(a.person_id)}
      </span>{" "}
      answered <strong>{answerLabel(ask)}</strong> at <time dateTime={a.at}>{time(a.at)}</time> (after{" "}
      {took(Date.parse(a.at) - Date.parse(ask.created_at))}){a.note ? ` — “${a.note}”` : ""} · {receipt}
    </p>
  );
}
