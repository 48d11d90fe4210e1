import {
  answerOf,
  type Ask,
  type AskRequest,
  type IfUnanswered,
  type Run,
  type StoredEvent,
} from "@/lib/core/protocol";
import type { Stored } from "./run";

/** The reason an answer not yet applied when its run ended is settled with (the harness may still say). */
const ASK_SETTLED_BY_FINISH = "the run finished before the harness applied the answer";

/** An ask that waits for a person ([ASK4]): what the inbox lists and the run panel counts. */
export const waitsForPerson = (a: Ask) => a.state === "asked" || a.state === "shown";

/** An answer the run's end settled, which a late `run.answer_applied` may still overrule. */
export const settledByFinish = (a: Ask) =>
  a.state === "rejected" && a.reason === ASK_SETTLED_BY_FINISH && a.settled_seq === null;

/** A run and its asks, oldest first: what one event of the run may change. */
export interface AskRecord {
  run: Run | null;
  asks: Ask[];
}

/**
 * How an ask event (or a run's end) moves a run's asks and, through them, the run's
 * `asks_open` and `waiting_since` ([ASK4]). `run` is the run already folded for the event,
 * `before` the run as it was when the event arrived. Pure: the writer, the room and a replay
 * call it, so the three agree.
 */
export function foldAsks(before: Run | null, run: Run | null, asks: Ask[], e: StoredEvent): AskRecord {
  switch (e.type) {
    case "run.asked":
      return run && before ? waiting(run, [...asks, asked(before, e)]) : { run, asks };
    case "run.ask_shown":
      return {
        run,
        asks: update(asks, e.ask_id, (a) =>
          a.state === "asked" ? { ...a, state: "shown", shown_via: e.via, shown_at: e.ts } : a,
        ),
      };
    case "run.answered":
      return waiting(
        run,
        update(asks, e.ask_id, (a) => (waitsForPerson(a) ? answered(a, e) : a)),
      );
    case "run.answer_applied":
      return {
        run,
        asks: update(asks, e.ask_id, (a) =>
          a.state === "answered" || settledByFinish(a)
            ? { ...a, state: e.result, reason: e.reason ?? null, settled_seq: e.seq, settled_at: e.ts }
            : a,
        ),
      };
    case "run.ask_closed":
      return waiting(
        run,
        update(asks, e.ask_id, (a) =>
          waitsForPerson(a)
            ? {
                ...a,
                state: "closed",
                closed_reason: e.reason,
                applied_default: e.applied_default ?? null,
                reason: e.note || null,
                settled_seq: e.seq,
                settled_at: e.ts,
              }
            : a,
        ),
      );
    case "run.finished":
      // An answer the harness never said it applied can no longer be: settled rejected. Asks
      // still waiting are closed by the events Chips appends right after ([ASK5]).
      return {
        run,
        asks: asks.some((a) => a.state === "answered")
          ? asks.map((a) => (a.state === "answered" ? { ...a, state: "rejected", reason: ASK_SETTLED_BY_FINISH } : a))
          : asks,
      };
    default:
      return { run, asks };
  }
}

function update(asks: Ask[], askId: string, change: (a: Ask) => Ask): Ask[] {
  const at = asks.findIndex((a) => a.ask_id === askId);
  if (at < 0) return asks;
  const next = change(asks[at]);
  return next === asks[at] ? asks : asks.map((a, i) => (i === at ? next : a));
}

/** The run's count of asks waiting for a person, and the oldest one's time ("needs you · since"). */
function waiting(run: Run | null, asks: Ask[]): AskRecord {
  if (!run) return { run, asks };
  let open = 0;
  let since: string | null = null;
  for (const a of asks) {
    if (a.run_id !== run.id || !waitsForPerson(a)) continue;
    open++;
    if (since === null || a.created_at < since) since = a.created_at;
  }
  return { run: { ...run, asks_open: open, waiting_since: since }, asks };
}

function asked(run: Run, e: Stored<"run.asked">): Ask {
  const request: AskRequest = { kind: e.kind };
  for (const k of [
    "tool",
    "summary",
    "command",
    "paths",
    "scope",
    "question",
    "free_text",
    "options",
    "expires_in_seconds",
    "if_unanswered",
    "source",
  ] as const)
    if (e[k] !== undefined) Object.assign(request, { [k]: e[k] });
  return {
    ask_id: e.ask_id,
    workspace_id: e.workspace_id,
    space_id: e.space_id ?? run.space_id,
    run_id: run.id,
    harness_id: run.harness_id,
    actor: e.actor,
    request,
    state: "asked",
    seq: e.seq,
    created_at: e.ts,
    expires_at:
      e.expires_in_seconds === undefined
        ? null
        : new Date(Date.parse(e.ts) + e.expires_in_seconds * 1000).toISOString(),
    shown_via: null,
    shown_at: null,
    answer: null,
    reason: null,
    closed_reason: null,
    applied_default: null,
    settled_seq: null,
    settled_at: null,
  };
}

function answered(a: Ask, e: Stored<"run.answered">): Ask {
  return {
    ...a,
    state: "answered",
    answer: answerOf(e),
  };
}

const DECISION_LABEL = { allow: "Allow", allow_for_run: "Allow for this run", deny: "Deny" } as const;

/** What an answer said, in words a person reads: the option's label, the decision, or the typed text. */
export function answerLabel(ask: Pick<Ask, "request" | "answer">): string {
  const a = ask.answer;
  if (!a) return "";
  const option = a.option_id ? ask.request.options?.find((o) => o.id === a.option_id) : undefined;
  if (option) return a.text ? `${option.label}: “${a.text}”` : option.label;
  if (a.decision) return DECISION_LABEL[a.decision];
  return a.text ? `“${a.text}”` : "";
}

/** [ASK8] What happens to an ask nobody answers: what its agent said, `deny` when it said nothing (an old ask). */
export const ifUnanswered = (ask: Pick<Ask, "request">): IfUnanswered => ask.request.if_unanswered ?? "deny";

/**
 * [ASK8] What applies once an ask goes unanswered, in words: the card, the inbox, the run page
 * and Chips' own close of an expired ask say it alike. A connect session's dialog stays on
 * the agent's terminal, so there nothing is denied: the person there decides.
 */
export function unansweredText(ask: Pick<Ask, "request">): string {
  switch (ifUnanswered(ask)) {
    case "ask_in_terminal":
      return "left to the prompt in the agent’s terminal";
    case "agent_default":
      return "the agent’s own default applies";
    default:
      return ask.request.kind === "permission"
        ? "the agent’s safe default applies (deny)"
        : "the agent goes on without an answer";
  }
}

/** [ASK8] What an expired ask's close says applied: the default the agent named, else what the ask said would. */
export function expiredText(ask: Pick<Ask, "request" | "applied_default">): string {
  return ask.applied_default ? `${ask.applied_default} applied` : unansweredText(ask);
}

/** [ASK8] The note of Chips' own close of an expired ask ([ASK6]): what applies, which the card says already. */
export const expiryNote = (ask: Pick<Ask, "request">): string => `no answer in time: ${unansweredText(ask)}`;
