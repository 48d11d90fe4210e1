import {
  DEFAULT_PERMISSION_OPTIONS,
  newId,
  problem,
  type Ask,
  type IncomingEvent,
  type ProblemError,
  type Run,
  type StoredEvent,
} from "@/lib/core/protocol";
import { settledByFinish, unansweredText, waitsForPerson } from "@/lib/core/projection/asks";
import type { RunFold } from "@/lib/core/projection/fold";
import type { BatchState } from "./batch-state";

type Of<T extends IncomingEvent["type"]> = Extract<IncomingEvent, { type: T }>;
export type AskEvent = Of<"run.asked" | "run.ask_shown" | "run.answered" | "run.answer_applied" | "run.ask_closed">;
export type AskVerdict =
  { kind: "ok"; event: IncomingEvent } | { kind: "replay"; body: string } | { kind: "refuse"; problem: ProblemError };

const refuse = (code: ProblemError["code"], detail: string, pointer: string): AskVerdict => ({
  kind: "refuse",
  problem: problem(code, detail, [{ pointer, message: detail }]),
});

export const isAskEvent = (e: IncomingEvent): e is AskEvent => "ask_id" in e;

/**
 * The ask rules ([ASK1]–[ASK6]) for one event of a run the general rules let through: an ask
 * id is the sender's once; the first answer wins; an answer fits what was asked and comes
 * before the ask expires; the harness says what became of an answer only once it has one.
 * `now` is the time the event is stored at.
 */
export function judgeAsk(s: BatchState, run: Run, e: AskEvent, now: string, base: string): AskVerdict {
  const ask = s.asks.get(e.ask_id);
  if (e.type === "run.asked") {
    if (ask || s.foreignAsks.has(e.ask_id))
      return refuse("invalid_transition", "an ask with this ask_id exists: each ask has its own id", `${base}/ask_id`);
    return { kind: "ok", event: e };
  }
  if (!ask || ask.run_id !== run.id) return refuse("ask_not_found", "no such ask for this run", `${base}/ask_id`);
  switch (e.type) {
    case "run.ask_shown":
      return ask.state === "asked"
        ? { kind: "ok", event: e }
        : refuse("invalid_transition", "the ask was already shown", `${base}/ask_id`);
    case "run.answered":
      return judgeAnswer(ask, e, now, base);
    case "run.answer_applied":
      if (ask.state === "answered" || settledByFinish(ask)) return { kind: "ok", event: e };
      if (waitsForPerson(ask))
        return refuse("invalid_transition", "nobody has answered this ask yet", `${base}/ask_id`);
      if (ask.state === "closed") return closed(ask, base);
      return ask.state === e.result && s.askSettles.has(ask.ask_id)
        ? { kind: "replay", body: s.askSettles.get(ask.ask_id)! }
        : refuse("invalid_transition", `the answer was already reported ${ask.state}`, `${base}/result`);
    case "run.ask_closed":
      if (waitsForPerson(ask)) return { kind: "ok", event: e };
      if (ask.state === "closed" && ask.closed_reason === e.reason && s.askSettles.has(ask.ask_id))
        return { kind: "replay", body: s.askSettles.get(ask.ask_id)! };
      return closed(ask, base);
  }
}

/**
 * [ASK2] The first answer wins; [ASK6] none after the ask expired. The refusal names what
 * became of the ask (who answered what and when, or why it closed), so the second person is
 * told. Then the answer must fit the ask; the server fills in what follows from it (the
 * decision of an option, the option of a decision, what "for this run" covers).
 */
function judgeAnswer(ask: Ask, e: Of<"run.answered">, now: string, base: string): AskVerdict {
  if (!waitsForPerson(ask)) return closed(ask, base);
  if (ask.expires_at && Date.parse(ask.expires_at) <= Date.parse(now)) {
    return {
      kind: "refuse",
      problem: {
        ...problem("ask_closed", `the ask expired at ${ask.expires_at}: ${unansweredText(ask)}`, [
          { pointer: `${base}/ask_id`, message: "expired" },
        ]),
        extensions: { ask_id: ask.ask_id, state: "closed", closed_reason: "expired", expires_at: ask.expires_at },
      },
    };
  }
  const r = ask.request;
  if (r.kind === "permission") {
    if (e.text !== undefined)
      return refuse("validation_failed", "a permission takes a decision (and a note), not text", `${base}/text`);
    const options = r.options?.length ? r.options : DEFAULT_PERMISSION_OPTIONS;
    const option =
      e.option_id !== undefined
        ? options.find((o) => o.id === e.option_id)
        : options.find((o) => o.decision === e.decision);
    if (e.option_id !== undefined && !option)
      return refuse("validation_failed", "not one of the ask's options", `${base}/option_id`);
    if (!option)
      return e.decision === undefined
        ? refuse("validation_failed", "a permission's answer needs a decision", `${base}/decision`)
        : refuse("validation_failed", `the agent offered no ${e.decision} here`, `${base}/decision`);
    if (e.decision !== undefined && option.decision !== e.decision)
      return refuse("validation_failed", `option ${option.id} means ${option.decision}`, `${base}/decision`);
    const decision = option.decision!;
    const scope = decision === "allow_for_run" ? (r.scope ?? r.tool) : undefined;
    return {
      kind: "ok",
      event: { ...e, decision, option_id: option.id, ...(scope ? { scope } : {}) },
    };
  }
  if (e.decision !== undefined)
    return refuse("validation_failed", "a question takes an option or text, not a decision", `${base}/decision`);
  if (e.option_id !== undefined && !r.options?.some((o) => o.id === e.option_id))
    return refuse("validation_failed", "not one of the question's options", `${base}/option_id`);
  if (e.text !== undefined && !r.free_text)
    return refuse("validation_failed", "this question takes one of its options, not text", `${base}/text`);
  if (e.option_id === undefined && e.text === undefined)
    return refuse("validation_failed", "an answer needs an option or text", `${base}/option_id`);
  return { kind: "ok", event: e };
}

/** `409 ask_closed` naming what became of the ask: the first answer, or why it closed. */
function closed(ask: Ask, base: string): AskVerdict {
  const a = ask.answer;
  const what = a?.decision ?? (a?.option_id ? `option ${a.option_id}` : "a typed answer");
  const detail = a
    ? `${a.person_id} already answered ${what} at ${a.at}`
    : `the ask was closed (${ask.closed_reason ?? "closed"}) at ${ask.settled_at}`;
  return {
    kind: "refuse",
    problem: {
      ...problem("ask_closed", detail, [{ pointer: `${base}/ask_id`, message: detail }]),
      extensions: {
        ask_id: ask.ask_id,
        state: ask.state,
        answer: a,
        closed_reason: ask.closed_reason,
        closed_at: a ? null : ask.settled_at,
      },
    },
  };
}

/**
 * [ASK5] The system events a run's end brings for its asks, appended right after it in the
 * same transaction: each ask still waiting for a person is closed `run_finished`. Judged as
 * any close of an open ask, so it can never refuse the event that finished the run.
 */
export function derivedAskEvents(before: RunFold, e: StoredEvent): IncomingEvent[] {
  if (e.type !== "run.finished" || !before.run) return [];
  return before.asks.filter(waitsForPerson).map((a): IncomingEvent => ({
    v: 1,
    type: "run.ask_closed",
    id: newId("event"),
    workspace_id: a.workspace_id,
    space_id: a.space_id,
    run_id: a.run_id,
    ask_id: a.ask_id,
    reason: "run_finished",
  }));
}
