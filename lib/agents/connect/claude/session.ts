import { newId } from "@/lib/core/protocol/ids";
import { clipUtf8 } from "@/lib/core/protocol/clip";
import { LIMITS } from "@/lib/core/protocol/limits";
import { Translator } from "@/lib/agents/runner/translate";
import type { Command, EventInput, StoredEvent } from "@/lib/agents/sdk/types";
import type { Durable } from "../outbox";
import { SessionAsks } from "./session-asks";
import type { QueueRecord, RunState, SessionContext, SessionState } from "./session-state";
import {
  applyTaskTool,
  callDenied,
  callFinished,
  callStarted,
  isPlanTool,
  queuedAt,
  taskItems,
  todoWriteItems,
  toolStarted,
  transcriptUsage,
} from "./tools";

const str = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * One Claude Code session mirrored into a room: each prompt typed in the terminal is a
 * run (`goal_from: harness`, the session id as `session_ref`), its todos are the dots,
 * its tool calls the typing indicator, its last words the answer, Stop the end. Commands
 * from the room become files the gate hands to the agent (control.ts); the gate's
 * decisions come back through the queue, and only then is the command acked — applied
 * when the agent really got it. Everything it says goes into the durable outbox, in order.
 */
export class ClaudeSession {
  private translator: Translator | null = null;
  readonly asks: SessionAsks;

  constructor(
    readonly d: Durable<SessionState>,
    private ctx: SessionContext,
  ) {
    d.state.asks ??= [];
    this.asks = new SessionAsks(d.state.asks, {
      control: ctx.control,
      askSeconds: ctx.askSeconds,
      queue: (events) => this.queue(events),
      unsend: (ids) => this.unsend(ids),
      spaceId: ctx.spaceId,
      sid: d.state.sid,
    });
  }

  /** Take the `run.asked` of these asks out of the outbox, if every one is still there (never sent). */
  private unsend(askIds: string[]): boolean {
    const isAsk = (e: { type: string; ask_id?: unknown }) =>
      e.type === "run.asked" && askIds.includes(e.ask_id as string);
    if (this.d.outbox.filter(isAsk).length !== askIds.length) return false;
    this.d.outbox = this.d.outbox.filter((e) => !isAsk(e));
    return true;
  }

  /** The live, running run, with what an ask needs of it. */
  private asking() {
    const run = this.state.run;
    if (!run || run.state !== "running") return null;
    run.granted ??= [];
    return { id: run.id, turn: run.turn, granted: run.granted };
  }

  /** An answer Chips pushed for one of this session's asks: a person's, or Chips' close. */
  answer(f: StoredEvent): void {
    if (f.type === "run.answered") this.asks.answered(f, this.asking());
    if (f.type === "run.ask_closed") this.asks.closed(f);
  }

  get state(): SessionState {
    return this.d.state;
  }

  private queue(events: EventInput[]) {
    this.d.outbox.push(...this.ctx.prepare(events));
  }

  private tr(run: RunState): Translator {
    if (!this.translator) {
      const sink = {
        post: (...events: EventInput[]) => {
          const live =
            run.state === "running" ? events : events.filter((e) => e.type !== "run.status" && e.type !== "run.step");
          this.queue(
            live.map(
              (e) =>
                ({
                  run_id: run.id,
                  ...(e.type === "message.posted" ? { space_id: this.ctx.spaceId } : {}),
                  ...e,
                }) as EventInput,
            ),
          );
        },
        runnerEvent: () => undefined, // log lines are a runner's; a terminal keeps its own
      };
      this.translator = new Translator(
        sink,
        { kind: "harness", id: this.ctx.harnessId },
        { preferActiveForm: true },
        run.translator,
      );
    }
    return this.translator;
  }

  /** Save what the translator knows into the state (call before persisting). */
  private keep() {
    if (this.translator && this.state.run) this.state.run.translator = this.translator.state();
  }

  private ack(commandId: string, runId: string, result: "applied" | "rejected", reason?: string) {
    this.state.open = this.state.open.filter((c) => c.id !== commandId);
    this.state.answered = [...this.state.answered, commandId].slice(-500);
    this.queue([
      { type: "run.command_acked", run_id: runId, command_id: commandId, result, ...(reason ? { reason } : {}) },
    ]);
  }

  /** Apply one queue record (in queue order). */
  apply(name: string, rec: QueueRecord): void {
    if (rec.chips_gate) this.decision(rec.chips_gate);
    else if (rec.chips_ask) this.asks.ask(rec.chips_ask, this.asking());
    else if (rec.chips_ask_end) this.asks.end(rec.chips_ask_end);
    else this.hook(name.replace(/\.json$/, ""), rec);
    this.keep();
    this.state.last = name;
  }

  private hook(name: string, rec: QueueRecord) {
    const run = this.state.run;
    const live = run && run.state !== "finished" ? run : null;
    if (rec.hook_event_name !== "Notification" && rec.hook_event_name !== "PermissionRequest") this.asks.movedOn();
    switch (rec.hook_event_name) {
      case "Notification":
        return this.asks.notification(str(rec.notification_type), str(rec.message), this.asking());
      case "UserPromptSubmit":
        return this.begin(name, str(rec.prompt));
      case "PreToolUse": {
        if (live?.deny) {
          // [TOOL3] the gate refused it before it ran: on the record as a denied call.
          this.tr(live).handle(callDenied(rec, live.deny));
          delete live.deny;
          return;
        }
        if (!live || live.state === "paused") return; // paused: a call that gets here was denied
        const input = (rec.tool_input ?? {}) as Record<string, unknown>;
        this.tr(live).handle(callStarted(rec, queuedAt(name)));
        for (const e of toolStarted(str(rec.tool_name), input, str(rec.tool_use_id))) this.tr(live).handle(e);
        return;
      }
      case "PostToolUseFailure": {
        // It ended without running, or ran and failed: a dialog's ask still waiting was answered at the terminal.
        const refused =
          rec.is_interrupt === true || /doesn't want to proceed|was rejected|denied/i.test(str(rec.error));
        this.asks.toolRan(str(rec.tool_name), (rec.tool_input ?? {}) as Record<string, unknown>, !refused);
        if (live) this.tr(live).handle(callFinished(rec, queuedAt(name)));
        return;
      }
      case "PostToolUse": {
        const tool = str(rec.tool_name);
        const input = (rec.tool_input ?? {}) as Record<string, unknown>;
        this.asks.toolRan(tool, input);
        if (live) this.tr(live).handle(callFinished(rec, queuedAt(name)));
        if (!live || !isPlanTool(tool)) return;
        if (tool === "TodoWrite") return this.tr(live).handle({ type: "plan", items: todoWriteItems(input) });
        this.state.tasks = applyTaskTool(this.state.tasks, tool, input, rec.tool_response);
        for (const t of this.state.tasks) if (!live.shown.includes(t.id)) live.shown.push(t.id);
        return this.tr(live).handle({ type: "plan", items: taskItems(this.state.tasks, live.shown) });
      }
      case "Stop":
        if (!live) return;
        if (live.stop_blocked) {
          live.stop_blocked = false; // a steer sent the agent on: what it said so far is still worth showing
          if (str(rec.last_assistant_message).trim())
            this.tr(live).handle({ type: "message", text: str(rec.last_assistant_message) });
          return;
        }
        return this.end(live, str(rec.last_assistant_message), str(rec.transcript_path));
      case "SessionEnd":
        if (live) this.close(live, "cancelled", "The Claude Code session ended before the turn did.");
        return;
    }
  }

  private begin(turn: string, prompt: string) {
    const old = this.state.run;
    if (old && old.state !== "finished")
      this.close(old, "cancelled", "Interrupted in the terminal (a new prompt came before the turn ended).");
    this.ctx.control.clear(turn);
    const run: RunState = {
      id: newId("run"),
      turn,
      started_at: new Date().toISOString(),
      state: "running",
      translator: { sessionId: this.state.sid, usage: null, lastMessage: null, steps: [], progress: 0 },
      shown: this.state.tasks.filter((t) => t.status === "pending" || t.status === "in_progress").map((t) => t.id),
      stop_blocked: false,
      holding: [],
    };
    if (old) this.state.past_runs = [...this.state.past_runs, old.id].slice(-50);
    this.state.run = run;
    this.translator = null;
    this.queue([
      {
        type: "run.started",
        run_id: run.id,
        space_id: this.ctx.spaceId,
        goal: clipUtf8(prompt.trim() || "(an empty prompt)", LIMITS.goal),
        goal_from: "harness",
        session_ref: this.state.sid,
        // [RUN2] all four reach the agent through the hooks (docs/CONNECT.md, "The buttons")
        commands: ["steer", "pause", "resume", "cancel"],
      },
    ]);
    if (run.shown.length) this.tr(run).handle({ type: "plan", items: taskItems(this.state.tasks, run.shown) });
  }

  /** Stop: the answer, the usage, the end — and whatever the room asked that never reached the agent, refused. */
  private end(run: RunState, answer: string, transcript: string) {
    this.refuseOpen(run, "The turn ended before the agent reached another tool call.");
    if (answer.trim()) this.tr(run).handle({ type: "message", text: answer });
    const usage = transcript ? transcriptUsage(transcript, run.started_at) : null;
    run.state = "finished";
    this.asks.turnEnded(run.id);
    this.queue([{ type: "run.finished", run_id: run.id, outcome: "succeeded", ...(usage ? { usage } : {}) }]);
    this.ctx.control.clear();
  }

  private close(run: RunState, outcome: "cancelled" | "failed", summary: string) {
    this.refuseOpen(run, "The turn ended before the agent got it.");
    run.state = "finished";
    this.asks.turnEnded(run.id);
    this.queue([{ type: "run.finished", run_id: run.id, outcome, summary }]);
    this.ctx.control.clear();
  }

  private refuseOpen(run: RunState, reason: string) {
    for (const c of this.state.open.filter((o) => o.run_id === run.id)) this.ack(c.id, run.id, "rejected", reason);
  }

  private decision(g: NonNullable<QueueRecord["chips_gate"]>) {
    const run = this.state.run;
    if (!run) return;
    const isOpen = (id: string | undefined) => !!id && this.state.open.some((c) => c.id === id);
    switch (g.kind) {
      case "held":
        if (!run.holding.includes(g.command_id!)) run.holding.push(g.command_id!);
        if (isOpen(g.command_id)) {
          this.ack(g.command_id!, run.id, "applied");
          run.state = "paused";
        }
        return;
      case "hold_expired":
        run.holding = run.holding.filter((id) => id !== g.command_id);
        run.deny = "Held while the run was paused, as long as a pause may hold a call; not run.";
        this.ctx.log(
          `${run.id}: a pause held a tool call as long as it may; the call was denied, the run stays paused`,
        );
        return;
      case "released":
        run.holding = run.holding.filter((id) => id !== g.command_id);
        if (isOpen(g.resume_id)) {
          this.ack(g.resume_id!, run.id, "applied");
          if (run.state === "paused") run.state = "running";
        }
        return;
      case "steer":
        for (const id of g.command_ids ?? []) if (isOpen(id)) this.ack(id, run.id, "applied");
        if (g.at === "Stop") run.stop_blocked = true;
        if (g.at === "PreToolUse") run.deny = "Not run: the room's guidance came first.";
        return;
      case "cancel":
        if (isOpen(g.command_id)) {
          this.ack(g.command_id!, run.id, "applied"); // Chips then finishes the run cancelled
          this.refuseOpen(run, "The run was cancelled.");
          run.state = "finished";
          this.asks.turnEnded(run.id);
        }
        return;
    }
  }

  /** True when this session knows the command's run (now or before). */
  owns(cmd: Command): boolean {
    return this.state.run?.id === cmd.run_id || this.state.past_runs.includes(cmd.run_id!);
  }

  /** A command from the room for one of this session's runs. */
  command(cmd: Command): void {
    const s = this.state;
    if (s.answered.includes(cmd.command_id) || s.open.some((c) => c.id === cmd.command_id)) return; // a redelivery
    const run = s.run;
    if (!run || run.id !== cmd.run_id || run.state === "finished")
      return this.ack(cmd.command_id, cmd.run_id!, "rejected", "That turn has already ended in the terminal.");
    const c = this.ctx.control;
    s.open.push({ id: cmd.command_id, kind: cmd.command, run_id: run.id });
    switch (cmd.command) {
      case "pause":
        c.write("pause", run.turn, cmd.command_id);
        return;
      case "resume":
        if (run.holding.length) {
          c.write("resume", run.turn, cmd.command_id); // first: the gate reads it once the pause is gone
          c.remove("pause", run.turn);
        } else {
          c.remove("pause", run.turn);
          this.ack(cmd.command_id, run.id, "applied"); // nothing is held: the next tool call just runs
          run.state = "running";
        }
        return;
      case "steer":
        c.write("steer", run.turn, cmd.command_id, { text: cmd.text ?? "" });
        return;
      case "cancel":
        c.write("cancel", run.turn, cmd.command_id);
        c.remove("pause", run.turn); // a held call is let go, to be denied as cancelled
        return;
    }
  }

  /** True while the session has a turn going, a command or an ask waiting. */
  get busy(): boolean {
    return (
      (!!this.state.run && this.state.run.state !== "finished") ||
      this.state.open.length > 0 ||
      (this.state.asks ?? []).some((a) => !a.ended)
    );
  }
}
