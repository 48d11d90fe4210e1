import type { Usage } from "@/lib/core/protocol";
import { clipUtf8, utf8Prefix } from "@/lib/core/protocol/clip";
import { utf8Length } from "@/lib/core/protocol/fields";
import { LIMITS } from "@/lib/core/protocol/limits";
import type { ObjectRef } from "@/lib/core/protocol/runner-contract";
import type { EventInput } from "@/lib/agents/sdk/types";
import type { AgentEvent, PlanItem } from "./adapter";
import { INLINE_MAX } from "./outbox";
import { CallTracker, type CallSink, type CallsState } from "./calls";

type StepState = "pending" | "active" | "done" | "skipped";
interface Step {
  title: string;
  state: StepState;
  activeForm?: string;
}

/**
 * Where translated events go: room events of the run (the sink fills in `run_id` and
 * `space_id`), and log lines (a runner's `runner.event`; a harness without a runner
 * identity keeps them local). The runner's Outbox is one; `chips connect`'s spool is another.
 */
export interface TranslatorSink extends CallSink {
  post(...events: EventInput[]): unknown;
  /** A payload still being made (an upload) keeps the event's place: the sink posts it when it is ready. */
  runnerEvent(
    kind: "log",
    message: string,
    payload?: Record<string, unknown> | Promise<Record<string, unknown>>,
  ): unknown;
  /** Store bytes in the run's object store ([RN3]); a sink without one keeps only the inline part. */
  upload?(bytes: Buffer): Promise<ObjectRef>;
}

/** What a Translator must remember across restarts of the process that owns it. */
export interface TranslatorState {
  sessionId: string | null;
  usage: Usage | null;
  lastMessage: string | null;
  steps: Step[];
  progress: number;
  /** Tool calls open, and the launch count (left out by states saved before tool calls were tracked). */
  calls?: CallsState;
}

export interface TranslatorOptions {
  /**
   * Show the in-progress todo's `activeForm` as the typing indicator while a tool runs,
   * instead of the tool's own words (`chips connect`: a person's own terminal says the
   * same). Default false: a runner shows the command.
   */
  preferActiveForm?: boolean;
}

/** How much of a command, a file list or a todo the typing indicator shows, in UTF-8 bytes. */
const SHOWN_BYTES = 120;
/** How much of a command or a file list a log line names (the event carries all of it). */
const LOGGED_BYTES = 300;
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
/** "npm test…": one line, cut on a code point to at most SHOWN_BYTES, one ellipsis. */
const ongoing = (what: string) => `${utf8Prefix(oneLine(what), SHOWN_BYTES).replace(/…$/, "")}…`;
/** "Running npm test…". */
export const doing = (verb: string, what: string) => `${verb} ${ongoing(what)}`;

/**
 * The shared translation core: what an agent did ({@link AgentEvent}, from any adapter)
 * becomes room events — its plan as dots (`todo-<index>`; items that disappear are
 * skipped), its current action as the typing indicator, its words in the timeline, its
 * usage on the run — and runner log events. Progress is the share of plan items done and
 * never goes down (`run.status`, docs/PROTOCOL.md §2).
 */
export class Translator {
  sessionId: string | null = null;
  usage: Usage | null = null;
  turnCompleted = false;
  failure: string | null = null;
  lastMessage: string | null = null;
  private steps: Step[] = [];
  private progress = 0;
  /** Called after the agent changed files or ran a command: the core checkpoints. */
  onWork: (() => void) | null = null;
  private calls: CallTracker;

  constructor(
    private out: TranslatorSink,
    private actor: { kind: "harness"; id: string },
    private options: TranslatorOptions = {},
    saved?: TranslatorState,
  ) {
    this.calls = new CallTracker(out, actor, saved?.calls);
    if (saved) {
      this.sessionId = saved.sessionId;
      this.usage = saved.usage;
      this.lastMessage = saved.lastMessage;
      this.steps = saved.steps;
      this.progress = saved.progress;
    }
  }

  /** What to keep to build this translator again (`new Translator(sink, actor, options, state)`). */
  state(): TranslatorState {
    return {
      sessionId: this.sessionId,
      usage: this.usage,
      lastMessage: this.lastMessage,
      steps: this.steps,
      progress: this.progress,
      calls: this.calls.state(),
    };
  }

  /** The typing indicator for a tool: the in-progress todo's activeForm when asked to prefer it. */
  private doingNow(verb: string, what: string): string {
    const active = this.options.preferActiveForm ? this.steps.find((s) => s.state === "active")?.activeForm : undefined;
    return active ? ongoing(active) : doing(verb, what);
  }

  /** A new launch (resume): a turn has to complete again. */
  relaunched() {
    this.turnCompleted = false;
    this.failure = null;
    this.calls.relaunched();
  }

  handle(e: AgentEvent): void {
    switch (e.type) {
      case "session":
        if (this.sessionId !== e.id) void this.out.runnerEvent("log", `agent session ${e.id}`, { session_id: e.id });
        this.sessionId = e.id;
        return;
      case "plan":
        return this.plan(e.items);
      case "command": {
        if (e.phase === "started") return this.status("running", this.doingNow("Running", e.command));
        void this.out.runnerEvent(
          "log",
          `$ ${clipUtf8(oneLine(e.command), LOGGED_BYTES)} (exit ${e.exitCode ?? "?"})`,
          this.commandPayload(e.command, e.exitCode ?? null, e.output ?? ""),
        );
        this.onWork?.();
        return;
      }
      case "file_change": {
        const names = e.paths.map((p) => p.split("/").pop()).join(", ");
        if (e.phase === "started") return this.status("editing", this.doingNow("Editing", names));
        void this.out.runnerEvent("log", `changed ${clipUtf8(names, LOGGED_BYTES)}`, { paths: e.paths });
        this.onWork?.();
        return;
      }
      case "tool":
        if (e.phase === "started") this.status("working", this.doingNow(e.verb, e.target));
        return;
      case "call_started":
        return this.calls.started(e);
      case "call_finished":
        return this.calls.finished(e);
      case "message":
        this.lastMessage = e.text;
        void this.out.post({ type: "message.posted", text: clipUtf8(e.text, LIMITS.text), actor: this.actor });
        return;
      case "reasoning":
        return this.status("thinking", "Thinking…");
      case "usage":
        this.usage = e.usage;
        return;
      case "turn_completed":
        this.turnCompleted = true;
        return;
      case "turn_failed":
        this.failure = e.message;
        void this.out.runnerEvent("log", `turn failed: ${e.message}`);
        return;
      case "notice":
        void this.out.runnerEvent("log", e.message);
        return;
    }
  }

  /**
   * A finished command's log payload ([RN3]): its output inline when it fits in
   * {@link INLINE_MAX} bytes; else the first part inline and the whole of it in the object
   * store as `output_ref` `{key, sha256, bytes}` — never dropped. An upload that fails for
   * good is said in `output_error`, with the inline part kept.
   */
  private commandPayload(command: string, exitCode: number | null, output: string) {
    const fits = utf8Length(output) <= INLINE_MAX;
    const inline = {
      command,
      exit_code: exitCode,
      output: fits ? output : clipUtf8(output, INLINE_MAX),
      truncated: !fits,
    };
    if (fits || !this.out.upload) return inline;
    return this.out.upload(Buffer.from(output, "utf8")).then(
      (ref) => ({ ...inline, output_ref: ref }),
      (err: unknown) => ({
        ...inline,
        output_error: `the whole output could not be stored: ${(err as Error).message}`,
      }),
    );
  }

  status(phase: string, verbPhrase: string) {
    void this.out.post({
      type: "run.status",
      phase,
      verb_phrase: clipUtf8(verbPhrase, LIMITS.verbPhrase),
      ...(this.steps.length ? { progress: this.progress } : {}),
      ...(this.usage ? { usage: this.usage } : {}),
      actor: this.actor,
    });
  }

  private plan(items: PlanItem[]) {
    const firstOpen = items.findIndex((i) => !i.completed);
    const next: Step[] = items.map((i, n) => ({
      title: clipUtf8(i.text, LIMITS.title) || `Step ${n + 1}`, // [LIM1] one long title must not sink the batch
      state: i.completed ? "done" : i.active || n === firstOpen ? "active" : "pending",
      ...(i.activeForm ? { activeForm: i.activeForm } : {}),
    }));
    const events = [];
    for (let n = 0; n < Math.max(next.length, this.steps.length); n++) {
      const before = this.steps[n];
      const after: Step = next[n] ?? { title: before.title, state: "skipped" };
      if (before && before.title === after.title && before.state === after.state) continue;
      if (before?.state === "skipped" && !next[n]) continue;
      events.push({
        type: "run.step" as const,
        step_id: `todo-${n}`,
        state: after.state,
        ...(!before || before.title !== after.title ? { title: after.title } : {}),
        actor: this.actor,
      });
    }
    this.steps =
      next.length >= this.steps.length
        ? next
        : [...next, ...this.steps.slice(next.length).map((s) => ({ ...s, state: "skipped" as const }))];
    const done = next.filter((s) => s.state === "done").length;
    this.progress = Math.max(this.progress, next.length ? done / next.length : 0);
    if (!events.length) return; // the same plan again (item.updated, then item.completed)
    void this.out.post(...events);
    const now = next[firstOpen];
    if (next.length)
      this.status(
        "planning",
        this.options.preferActiveForm && now?.activeForm
          ? ongoing(now.activeForm)
          : `Working on: ${clipUtf8(now?.title ?? "wrapping up", SHOWN_BYTES)}`,
      );
  }
}
