import { z } from "zod";
import { AskCloseReason, AskDecision, AskKind, AskOption, IfUnanswered, ShownVia } from "./ask-events";
import { text } from "./fields";
import { LIMITS } from "./limits";
import { StoredActor } from "./models";
import type { StoredEvent } from "./events";

/**
 * The read model of an ask and its receipt ([ASK4]), folded by the one projection
 * (lib/core/projection/asks.ts) — on the server with its events, in the browser from the feed,
 * in a replay from the log — and the bodies of the ask routes (docs/API.md).
 */

/**
 * Where an ask stands: `asked` → `shown` (it reached a person) → `answered` (the first answer)
 * → `applied` | `rejected` (the harness's word on it); or `asked`/`shown` → `closed` (expired,
 * answered at the terminal, the run finished, withdrawn). `asked` and `shown` need a person.
 */
export const AskState = z.enum(["asked", "shown", "answered", "applied", "rejected", "closed"]);
export type AskState = z.infer<typeof AskState>;

/** What was asked: the fields of the `run.asked`, as sent. */
export const AskRequest = z.object({
  kind: AskKind,
  tool: z.string().optional(),
  summary: z.string().optional(),
  command: z.string().optional(),
  paths: z.array(z.string()).optional(),
  scope: z.string().optional(),
  question: z.string().optional(),
  free_text: z.boolean().optional(),
  options: z.array(AskOption).optional(),
  expires_in_seconds: z.number().optional(),
  if_unanswered: IfUnanswered.optional(),
  source: z.string().optional(),
});
export type AskRequest = z.infer<typeof AskRequest>;

/** The first answer: who gave it, when (and its seq), and what. */
export const AskAnswer = z.object({
  person_id: z.string(),
  at: z.string(),
  seq: z.number().int(),
  decision: AskDecision.nullable(),
  option_id: z.string().nullable(),
  text: z.string().nullable(),
  note: z.string().nullable(),
  /** What an `allow_for_run` covers: the ask's scope, else its tool. */
  scope: z.string().nullable(),
});
export type AskAnswer = z.infer<typeof AskAnswer>;

/** The answer a stored `run.answered` gives: the ask's fold and the SDK read it alike. */
export function answerOf(e: Extract<StoredEvent, { type: "run.answered" }>): AskAnswer {
  return {
    person_id: e.actor.id,
    at: e.ts,
    seq: e.seq,
    decision: e.decision ?? null,
    option_id: e.option_id ?? null,
    text: e.text ?? null,
    note: e.note ?? null,
    scope: e.scope ?? null,
  };
}

export const Ask = z.object({
  ask_id: z.string(),
  workspace_id: z.string(),
  space_id: z.string(),
  run_id: z.string(),
  /** The harness (or runner) the answer goes to: the run's when it asked. */
  harness_id: z.string().nullable(),
  /** Who asked: the harness, or one of its agents. */
  actor: StoredActor,
  request: AskRequest,
  state: AskState,
  /** Seq and time of the `run.asked`; when it stops taking answers ([ASK6]), if it does. */
  seq: z.number().int(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  shown_via: ShownVia.nullable(),
  shown_at: z.string().nullable(),
  answer: AskAnswer.nullable(),
  /** Why it was rejected (the harness's reason), or what its closing said. */
  reason: z.string().nullable(),
  closed_reason: AskCloseReason.nullable(),
  applied_default: z.string().nullable(),
  /** Seq and time of the `run.answer_applied` or `run.ask_closed` that settled it. */
  settled_seq: z.number().int().nullable(),
  settled_at: z.string().nullable(),
});
export type Ask = z.infer<typeof Ask>;

/** `POST /api/v1/runs/:run/asks/:ask/answer`: a person's answer ([ASK2]). */
export const AnswerBody = z.object({
  decision: AskDecision.optional(),
  option_id: text(LIMITS.askOptionId).optional(),
  text: text(LIMITS.askQuestion).optional(),
  note: text(LIMITS.note).optional(),
  idempotency_key: z.string().min(1).max(LIMITS.idempotencyKey),
});
export type AnswerBody = z.infer<typeof AnswerBody>;

/** `GET /api/v1/runs/:run/asks`: a run's asks and their receipts, oldest first. */
export const RunAsksAnswer = z.object({ run_id: z.string(), asks: z.array(Ask) });
export type RunAsksAnswer = z.infer<typeof RunAsksAnswer>;

/** An ask in the inbox, with its room's and run's names. */
export const InboxAsk = Ask.extend({
  space_name: z.string(),
  run_goal: z.string(),
  harness_name: z.string().nullable(),
});

/** `GET /api/v1/workspaces/:ws/asks`: the inbox — asks across rooms, oldest first. */
export const InboxAnswer = z.object({ asks: z.array(InboxAsk) });
export type InboxAnswer = z.infer<typeof InboxAnswer>;
