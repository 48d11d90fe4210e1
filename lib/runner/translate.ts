import type { Usage } from "@/lib/protocol";
import type { AgentEvent } from "./adapter";
import { INLINE_MAX, type Outbox } from "./outbox";

type StepState = "pending" | "active" | "done" | "skipped";
interface Step {
  title: string;
  state: StepState;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
/** "Running npm test…": one line, at most ~120 characters, one ellipsis. */
const doing = (verb: string, what: string) => `${verb} ${clip(oneLine(what), 120).replace(/…$/, "")}…`;

/**
 * The shared translation core: what an agent did ({@link AgentEvent}, from any adapter)
 * becomes room events — its plan as dots (`todo-<index>`; items that disappear are
 * skipped), its current action as the typing indicator, its words in the timeline, its
 * usage on the run — and runner log events. Progress is the share of plan items done and
 * never goes down ([seed 001]).
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

  constructor(
    private out: Outbox,
    private actor: { kind: "harness"; id: string },
  ) {}

  /** A new launch (resume): a turn has to complete again. */
  relaunched() {
    this.turnCompleted = false;
    this.failure = null;
  }

  handle(e: AgentEvent): void {
    switch (e.type) {
      case "session":
        if (this.sessionId !== e.id) void this.out.runnerEvent("log", `agent session ${e.id}`, { session_id: e.id });
        this.sessionId = e.id;
        return;
      case "plan":
        return this.plan(e.items);
      case "command":
        if (e.phase === "started") return this.status("running", doing("Running", e.command));
        void this.out.runnerEvent("log", `$ ${clip(oneLine(e.command), 300)} (exit ${e.exitCode ?? "?"})`, {
          command: e.command,
          exit_code: e.exitCode ?? null,
          output: clip(e.output ?? "", INLINE_MAX),
          truncated: (e.output ?? "").length > INLINE_MAX,
        });
        this.onWork?.();
        return;
      case "file_change": {
        const names = e.paths.map((p) => p.split("/").pop()).join(", ");
        if (e.phase === "started") return this.status("editing", doing("Editing", names));
        void this.out.runnerEvent("log", `changed ${clip(names, 300)}`, { paths: e.paths });
        this.onWork?.();
        return;
      }
      case "message":
        this.lastMessage = e.text;
        void this.out.post({ type: "message.posted", text: e.text, actor: this.actor });
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

  status(phase: string, verbPhrase: string) {
    void this.out.post({
      type: "run.status",
      phase,
      verb_phrase: verbPhrase,
      ...(this.steps.length ? { progress: this.progress } : {}),
      ...(this.usage ? { usage: this.usage } : {}),
      actor: this.actor,
    });
  }

  private plan(items: Array<{ text: string; completed: boolean; active?: boolean }>) {
    const firstOpen = items.findIndex((i) => !i.completed);
    const next: Step[] = items.map((i, n) => ({
      title: clip(i.text, 500) || `Step ${n + 1}`,
      state: i.completed ? "done" : i.active || n === firstOpen ? "active" : "pending",
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
    this.steps = next.length >= this.steps.length ? next : [...next, ...this.steps.slice(next.length).map((s) => ({ ...s, state: "skipped" as const }))];
    const done = next.filter((s) => s.state === "done").length;
    this.progress = Math.max(this.progress, next.length ? done / next.length : 0);
    if (!events.length) return; // the same plan again (item.updated, then item.completed)
    void this.out.post(...events);
    if (next.length) this.status("planning", `Working on: ${clip(next[firstOpen]?.title ?? "wrapping up", 120)}`);
  }
}
