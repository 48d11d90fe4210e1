import { newId } from "../../core/protocol/ids";
import { answerOf, type Ask, type AskAnswer } from "../../core/protocol/asks";
import type { AskCloseReason, AskOption, IfUnanswered } from "../../core/protocol/ask-events";
import { isChipsError } from "./errors";
import { sleep } from "./retry";
import { warn } from "./socket";
import type { Transport } from "./transport";
import type { EventInput, StoredEvent } from "./types";

/** What a harness asks a person ([ASK1]): a permission for a tool call, or a question. */
export type AskRequest =
  | {
      kind: "permission";
      /** The tool, e.g. `Bash`; and what the call will do, one redacted line. */
      tool: string;
      summary: string;
      command?: string;
      paths?: string[];
      /** What "allow for this run" covers (default: the tool). */
      scope?: string;
      /** Your own choices, each saying which decision it means (default: Allow / Allow for this run / Deny). */
      options?: AskOption[];
      expiresInSeconds?: number;
      /** [ASK8] What you do if nobody answers in time (default `deny`). */
      ifUnanswered?: IfUnanswered;
      source?: string;
    }
  | {
      kind: "question";
      question: string;
      options?: AskOption[];
      /** A typed answer is taken. */
      freeText?: boolean;
      expiresInSeconds?: number;
      /** [ASK8] What you do if nobody answers in time (default `deny`). */
      ifUnanswered?: IfUnanswered;
      source?: string;
    };

/** Options of `client.ask`. */
export interface AskOptions {
  /** The ask's id (`ask_…`); a fresh one when left out. */
  askId?: string;
  /** Withdraw the ask: it is closed `cancelled` and the promise answers that. */
  signal?: AbortSignal;
  /** How long one long-poll waits, seconds (1–30, default 25). */
  pollSeconds?: number;
}

/**
 * What became of an ask: a person's answer — act on it, then say so with `apply()` (or
 * `reject(reason)` when it could not be acted on: the call was gone) — or its close without
 * one: expired (your safe default applies), withdrawn, or the run finished.
 */
export type AskOutcome =
  | {
      kind: "answered";
      askId: string;
      answer: AskAnswer;
      apply(): Promise<StoredEvent>;
      reject(reason: string): Promise<StoredEvent>;
    }
  | { kind: "closed"; askId: string; reason: AskCloseReason; appliedDefault: string | null; note: string | null };

type Settled =
  { answered: AskAnswer } | { closed: { reason: AskCloseReason; applied_default?: string; note?: string } };

/** How asks post: the client's `post`. */
export interface AskPoster {
  post(event: EventInput): Promise<StoredEvent>;
}

const waits = (state: Ask["state"]) => state === "asked" || state === "shown";

/**
 * A client's asks waiting for their answer: settled by whichever comes first — the
 * `/harness` socket's push of the answer (when the client has one open), or a long-poll of
 * `GET /api/v1/runs/:run/asks/:ask?wait=` (always running, so an answer is never missed).
 */
export class AskWaiter {
  private readonly pending = new Map<string, (s: Settled) => void>();

  constructor(
    private readonly poster: AskPoster,
    private readonly transport: Transport,
  ) {}

  /** An `answer` pushed on the `/harness` socket: a person's `run.answered`, or Chips' `run.ask_closed`. */
  deliver(frame: unknown): void {
    const f = frame as Partial<StoredEvent> & Record<string, unknown>;
    const settle = typeof f?.ask_id === "string" ? this.pending.get(f.ask_id) : undefined;
    if (!settle) return;
    if (f.type === "run.answered") settle({ answered: answerOf(f as Extract<StoredEvent, { type: "run.answered" }>) });
    if (f.type === "run.ask_closed") settle({ closed: f as Extract<StoredEvent, { type: "run.ask_closed" }> });
  }

  async ask(runId: string, req: AskRequest, opts: AskOptions = {}): Promise<AskOutcome> {
    const askId = opts.askId ?? newId("ask");
    const settled = new Promise<Settled>((resolve) =>
      this.pending.set(askId, (s) => {
        this.pending.delete(askId);
        resolve(s);
      }),
    );
    try {
      await this.poster.post(askedEvent(runId, askId, req));
    } catch (e) {
      this.pending.delete(askId);
      throw e;
    }
    const stop = new AbortController();
    void this.poll(runId, askId, Math.min(30, Math.max(1, opts.pollSeconds ?? 25)), stop.signal);
    const timer =
      req.expiresInSeconds !== undefined
        ? setTimeout(
            // [ASK8] Deny is said applied only where the ask said the agent denies.
            () => void this.close(runId, askId, "expired", deniesUnanswered(req) ? "deny" : undefined),
            req.expiresInSeconds * 1000,
          )
        : null;
    const onAbort = () => void this.close(runId, askId, "cancelled");
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return this.outcome(runId, askId, await settled);
    } finally {
      stop.abort();
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
    }
  }

  private outcome(runId: string, askId: string, s: Settled): AskOutcome {
    if ("closed" in s) {
      const c = s.closed;
      return {
        kind: "closed",
        askId,
        reason: c.reason,
        appliedDefault: c.applied_default ?? null,
        note: c.note || null,
      };
    }
    const report = (result: "applied" | "rejected", reason?: string) =>
      this.poster.post({
        type: "run.answer_applied",
        run_id: runId,
        ask_id: askId,
        result,
        ...(reason !== undefined ? { reason } : {}),
      });
    return {
      kind: "answered",
      askId,
      answer: s.answered,
      apply: () => report("applied"),
      reject: (reason: string) => report("rejected", reason),
    };
  }

  /** Long-poll the ask until it is settled (here, or by a push); a failed poll is tried again a second later. */
  private async poll(runId: string, askId: string, seconds: number, signal: AbortSignal) {
    const path = `/api/v1/runs/${encodeURIComponent(runId)}/asks/${encodeURIComponent(askId)}?wait=${seconds}`;
    while (!signal.aborted && this.pending.has(askId)) {
      try {
        const r = await this.transport.send<Ask>({ method: "GET", path, signal, timeoutMs: (seconds + 10) * 1000 });
        this.settleFrom(r.body);
      } catch {
        if (!signal.aborted) await sleep(1000);
      }
    }
  }

  /** The ask as the server has it: settles a waiter once it no longer waits for a person. */
  private settleFrom(ask: Ask) {
    const settle = this.pending.get(ask.ask_id);
    if (!settle || waits(ask.state)) return;
    if (ask.answer) settle({ answered: ask.answer });
    else
      settle({
        closed: {
          reason: ask.closed_reason ?? "cancelled",
          ...(ask.applied_default ? { applied_default: ask.applied_default } : {}),
          ...(ask.reason ? { note: ask.reason } : {}),
        },
      });
  }

  /**
   * Close an ask nobody answered (expiry, withdrawal); if an answer won the race, that answer
   * settles it. A close that cannot be sent is reported and left to the long-poll (Chips
   * closes an expired ask by itself).
   */
  private async close(runId: string, askId: string, reason: AskCloseReason, appliedDefault?: string) {
    try {
      await this.tryClose(runId, askId, reason, appliedDefault);
    } catch (e) {
      warn(e);
    }
  }

  private async tryClose(runId: string, askId: string, reason: AskCloseReason, appliedDefault?: string) {
    const settle = this.pending.get(askId);
    if (!settle) return;
    try {
      const stored = await this.poster.post({
        type: "run.ask_closed",
        run_id: runId,
        ask_id: askId,
        reason,
        ...(appliedDefault ? { applied_default: appliedDefault } : {}),
      });
      settle({ closed: stored as Extract<StoredEvent, { type: "run.ask_closed" }> });
    } catch (e) {
      if (!isChipsError(e) || e.code !== "ask_closed") throw e;
      const r = await this.transport.send<Ask>({
        method: "GET",
        path: `/api/v1/runs/${encodeURIComponent(runId)}/asks/${encodeURIComponent(askId)}`,
      });
      this.settleFrom(r.body);
    }
  }
}

/** [ASK8] A permission whose ask leaves nothing to a terminal or to the agent's own default is denied unanswered. */
const deniesUnanswered = (req: AskRequest) => req.kind === "permission" && (req.ifUnanswered ?? "deny") === "deny";

export function askedEvent(runId: string, askId: string, req: AskRequest): EventInput {
  const common = {
    type: "run.asked" as const,
    run_id: runId,
    ask_id: askId,
    kind: req.kind,
    ...(req.options ? { options: req.options } : {}),
    ...(req.expiresInSeconds !== undefined ? { expires_in_seconds: req.expiresInSeconds } : {}),
    ...(req.ifUnanswered !== undefined ? { if_unanswered: req.ifUnanswered } : {}),
    ...(req.source !== undefined ? { source: req.source } : { source: "sdk" }),
  };
  if (req.kind === "question")
    return { ...common, question: req.question, ...(req.freeText !== undefined ? { free_text: req.freeText } : {}) };
  return {
    ...common,
    tool: req.tool,
    summary: req.summary,
    ...(req.command !== undefined ? { command: req.command } : {}),
    ...(req.paths !== undefined ? { paths: req.paths } : {}),
    ...(req.scope !== undefined ? { scope: req.scope } : {}),
  };
}
