import type { AskOutcome, AskRequest, ChipsClient } from "@/lib/agents/sdk";
import type { AskPolicy, ToolCall, Verdict } from "./adapter";
import { answeredInput, answersMessage, deniedMessage, permissionAsk, questionAsks } from "./tool-asks";

/** A verdict for the CLI, and how to report on the person's answer once the CLI got it (or could not). */
export interface Decision {
  verdict: Verdict;
  report(delivered: boolean): Promise<void>;
}

export interface RunAsksOptions {
  /** A client whose posts give up fast: Chips unreachable means deny now, not a minute of retries. */
  client: ChipsClient;
  runId: string;
  policy: AskPolicy;
  /** [RN6] The profile's deadline: no answer within it → deny. */
  seconds: number;
  /** `claude-prompt-tool`, `codex`… */
  source: string;
  redact: (s: string) => string;
  /** Let the run's earlier events reach Chips first (the call's status before its ask). */
  before?: () => Promise<unknown>;
  log: (line: string) => void;
}

/** After the deadline Chips closes the ask itself ([ASK6]); this much later the runner stops waiting for that. */
const GRACE_MS = 5000;

type Answered = Extract<AskOutcome, { kind: "answered" }>;

const allow = (call: ToolCall): Verdict => ({ behavior: "allow", updatedInput: call.input });
const deny = (message: string): Verdict => ({ behavior: "deny", message });
const settled = (verdict: Verdict): Decision => ({ verdict, report: async () => {} });

/**
 * One `ask` run's permissions ([RN6]–[RN8]): which calls run, which wait for a person in the
 * room (through the SDK's `ask`: `run.asked`, the answer, `run.answer_applied`, or the close),
 * and which are denied outright. "Allow for this run" adds the ask's scope — a tool the
 * profile lets a person allow — to the run's grants; nothing widens the sandbox.
 */
export class RunAsks {
  private readonly granted = new Set<string>();
  private readonly open = new Set<AbortController>();

  constructor(private readonly o: RunAsksOptions) {}

  /** The verdict on one call. Never throws: whatever goes wrong denies the call, with the reason. */
  async decide(call: ToolCall, signal?: AbortSignal): Promise<Decision> {
    const { policy } = this.o;
    const asked = policy.ask.includes(call.tool);
    if (policy.allow === "*" ? !asked : policy.allow.includes(call.tool)) return settled(allow(call));
    if (!asked)
      return settled(
        deny(
          `${call.tool} is not allowed in this run's permission profile (ask): a person may allow ${policy.ask.join(", ")}, and nothing else runs.`,
        ),
      );
    if (call.tool === policy.question.tool) return this.questions(call, signal);
    if (this.granted.has(call.tool)) return settled(allow(call));
    return this.permission(call, signal);
  }

  /** Withdraw every ask still waiting (the agent was stopped): each is closed `cancelled`. */
  withdrawAll(): void {
    for (const c of this.open) c.abort();
  }

  private async permission(call: ToolCall, signal?: AbortSignal): Promise<Decision> {
    const ask = permissionAsk(call, { seconds: this.o.seconds, source: this.o.source, redact: this.o.redact });
    const got = await this.ask(ask, signal);
    if (got.kind !== "answered") return settled(deny(got.message));
    const { answer } = got.outcome;
    let verdict: Verdict = deny(deniedMessage(answer.note));
    if (answer.decision === "allow") verdict = allow(call);
    if (answer.decision === "allow_for_run") {
      // [RN7] The scope is the ask's own (the server never widens it); a scope outside the profile grants nothing.
      const scope = answer.scope ?? call.tool;
      if (this.o.policy.ask.includes(scope)) this.granted.add(scope);
      verdict = allow(call);
    }
    return { verdict, report: (delivered) => reportOn(got.outcome, delivered, this.o.log) };
  }

  private async questions(call: ToolCall, signal?: AbortSignal): Promise<Decision> {
    const asks = questionAsks(call.input, { seconds: this.o.seconds, source: this.o.source, redact: this.o.redact });
    if (!asks.length) return settled(deny("The question had nothing to ask."));
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const got = await Promise.all(
      asks.map(async (a) => {
        const r = await this.ask(a, stop.signal);
        if (r.kind !== "answered") stop.abort(); // one unanswered question: the others are withdrawn
        return r;
      }),
    );
    signal?.removeEventListener("abort", onAbort);
    const outcomes = got.flatMap((g) => (g.kind === "answered" ? [g.outcome] : []));
    const missed = got.flatMap((g) => (g.kind === "none" ? [g.message] : []));
    const input = missed.length
      ? null
      : answeredInput(
          call.input,
          outcomes.map((o) => o.answer),
        );
    const verdict = !input
      ? deny(missed[0] ?? "The answers did not fit the question.")
      : this.o.policy.question.answer === "input"
        ? allow({ ...call, input })
        : deny(answersMessage(input));
    return {
      verdict,
      report: async (delivered) => {
        for (const o of outcomes)
          await reportOn(
            o,
            delivered && !!input,
            this.o.log,
            input ? undefined : "another question of the same call went unanswered",
          );
      },
    };
  }

  /**
   * Ask the room and wait: a person's answer, or why there is none — Chips unreachable (at
   * once), no answer by the deadline, withdrawn. The wait never outlasts the deadline by more
   * than {@link GRACE_MS}, even when Chips goes away meanwhile.
   */
  private async ask(
    req: AskRequest,
    signal?: AbortSignal,
  ): Promise<{ kind: "answered"; outcome: Answered } | { kind: "none"; message: string }> {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    if (signal?.aborted) ctl.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    this.open.add(ctl);
    const seconds = this.o.seconds;
    let timer: NodeJS.Timeout | null = null;
    try {
      await this.o.before?.();
      const asking = this.o.client.ask(this.o.runId, req, { signal: ctl.signal });
      const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), seconds * 1000 + GRACE_MS)));
      const outcome = await Promise.race([asking, late]);
      if (outcome === "late") {
        // Chips did not say how the ask ended: it will close it itself; an answer that still wins is refused then.
        void asking.then(
          (o) =>
            reportOn(
              o,
              false,
              this.o.log,
              "the call had been denied when the answer came: it reached the runner too late",
            ),
          (e) => this.o.log(`ask ${req.kind}: ${(e as Error).message}`),
        );
        return { kind: "none", message: noAnswer(seconds) };
      }
      if (outcome.kind === "answered") return { kind: "answered", outcome };
      return {
        kind: "none",
        message:
          outcome.reason === "expired"
            ? noAnswer(seconds)
            : outcome.reason === "run_finished"
              ? "The run finished before a person answered: not run."
              : "The question to the room was withdrawn: not run.",
      };
    } catch (e) {
      this.o.log(`could not ask the room: ${(e as Error).message}`);
      return {
        kind: "none",
        message: `Chips could not be reached to ask a person (${(e as Error).message}): not run.`,
      };
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.open.delete(ctl);
    }
  }
}

const noAnswer = (seconds: number) =>
  `No answer from a person in the Chips room within ${seconds} s: the call was not run.`;

/** [ASK4] Say what became of a person's answer: applied when the CLI got it, else rejected with why. */
async function reportOn(o: AskOutcome, delivered: boolean, log: (line: string) => void, why?: string): Promise<void> {
  if (o.kind !== "answered") return;
  try {
    if (delivered) await o.apply();
    else await o.reject(why ?? "the agent had stopped before the answer reached it");
  } catch (e) {
    // Left unreported, the answer stays `answered` until the run's end settles it ([ASK5]).
    log(`could not report on the answer to ${o.askId}: ${(e as Error).message}`);
  }
}
