import { ulid } from "ulid";
import type { AskAnswer } from "@/lib/core/protocol";
import { ROUTES } from "@/lib/core/routes";
import { ApiError, call, failureLine } from "./api";

/**
 * The ask calls pages make ([ASK2], [ASK4]) over lib/browser/api.ts: a person's answer, and the
 * workspace's inbox.
 */

export interface AnswerInput {
  decision?: "allow" | "allow_for_run" | "deny";
  option_id?: string;
  text?: string;
  note?: string;
}

/** Who got there first, as a 409 names them ([ASK2]). */
interface FirstAnswer {
  name: string;
  label: string;
  at: string;
}

export type AnswerResult =
  | { ok: true }
  | { ok: false; first: FirstAnswer }
  | { ok: false; closed: { reason: string; at: string | null } }
  | { ok: false; error: string };

/** Answer an ask; a fresh key per press. A second answer is told who answered first, and what. */
export async function answerAsk(runId: string, askId: string, body: AnswerInput): Promise<AnswerResult> {
  try {
    await call(ROUTES.answerAsk, {
      params: { run: runId, ask: askId },
      body: { ...body, idempotency_key: `ans_${ulid()}` },
    });
    return { ok: true };
  } catch (e) {
    if (e instanceof ApiError && e.code === "ask_closed") {
      const p = e.problem as { answered_by_name?: string; answer_label?: string; answer?: AskAnswer | null };
      if (p.answer)
        return {
          ok: false,
          first: { name: p.answered_by_name ?? "someone", label: p.answer_label ?? "", at: p.answer.at },
        };
      const c = e.problem as { closed_reason?: string; closed_at?: string | null; expires_at?: string };
      return { ok: false, closed: { reason: c.closed_reason ?? "closed", at: c.closed_at ?? c.expires_at ?? null } };
    }
    return { ok: false, error: failureLine(e, "Could not reach Chips: try again.", (s) => `Could not answer (${s}).`) };
  }
}

/** What waits for a person across the workspace's rooms, oldest first. */
export const inboxAsks = async (workspaceId: string) =>
  (await call(ROUTES.inbox, { params: { ws: workspaceId }, query: { state: "open" } })).asks;
