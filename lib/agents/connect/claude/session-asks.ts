import { newId } from "@/lib/core/protocol/ids";
import { clipUtf8 } from "@/lib/core/protocol/clip";
import { LIMITS } from "@/lib/core/protocol/limits";
import type { AskAnswer } from "@/lib/core/protocol/asks";
import { askedEvent } from "@/lib/agents/sdk/asks";
import type { EventInput, StoredEvent } from "@/lib/agents/sdk/types";
import { answeredInput, deniedMessage, permissionAsk, questionAsks } from "@/lib/agents/runner/tool-asks";
import type { ControlFiles } from "./control";

/**
 * One permission prompt (or question) of a Claude Code session asked in the room ([CON3]–[CON6]):
 * the hook that waits for it (ask.mjs, by its queue id `key`), the asks it became (one per
 * question of an AskUserQuestion), their answers, and whether it still waits.
 */
export interface AskEntry {
  key: string;
  ask_ids: string[];
  run_id: string;
  turn: string;
  /** `dialog`: PermissionRequest (the terminal's dialog is up too); `print`: PreToolUse under `-p`; `notice`: a Notification. */
  mode: "dialog" | "print" | "notice";
  tool: string;
  input: Record<string, unknown>;
  answers: Record<string, AskAnswer>;
  sent: boolean;
  /** The answer was handed to the hook. */
  delivered: boolean;
  /** Why it no longer waits (a later answer is refused with it), or null. */
  ended: string | null;
}

/** A hook's record: a call to ask about, or how its wait ended. */
export interface AskRecord {
  key: string;
  mode?: "dialog" | "print";
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_use_id?: string;
  /** chips_ask_end: applied | elsewhere | expired | unreachable | gone */
  result?: string;
  note?: string;
}

export interface AsksContext {
  control: ControlFiles;
  askSeconds: number;
  queue(events: EventInput[]): void;
  /** Take events of these asks out of the outbox if they were never sent; true if they were all still there. */
  unsend(askIds: string[]): boolean;
  spaceId: string;
  sid: string;
}

/** JSON with sorted keys: the same call compares equal however its input was written (as ask.mjs compares). */
function canon(v: unknown): string {
  if (!v || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canon(o[k])}`)
    .join(",")}}`;
}

type Answered = Extract<StoredEvent, { type: "run.answered" }>;
type Closed = Extract<StoredEvent, { type: "run.ask_closed" }>;

/** [ASK8] Under `-p` a permission left unanswered is refused by Claude Code's rules: the close says deny applied. */
const denied = (e: AskEntry, reason: string) =>
  reason === "expired" && e.mode === "print" && e.tool !== "AskUserQuestion" ? { applied_default: "deny" } : {};

/** What Claude Code reads from the hook, by mode: PermissionRequest's `decision`, PreToolUse's `permissionDecision`. */
function hookOutput(mode: AskEntry["mode"], allow: boolean, updatedInput: Record<string, unknown> | null, why: string) {
  if (mode === "dialog")
    return {
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: allow
          ? { behavior: "allow", ...(updatedInput ? { updatedInput } : {}) }
          : { behavior: "deny", message: why },
      },
    };
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: allow ? "allow" : "deny",
      permissionDecisionReason: why,
      ...(allow && updatedInput ? { updatedInput } : {}),
    },
  };
}

/**
 * The asks of one session, kept in its durable state: the drainer folds the hooks' records
 * and the room's answers (`/harness` pushes) through here, in order, and the hook reads what
 * it needs from the control files.
 */
export class SessionAsks {
  constructor(
    private entries: AskEntry[],
    private ctx: AsksContext,
  ) {}

  /** A hook asks about a call on the run `run` (null: no turn going: the hook steps aside). */
  ask(r: AskRecord, run: { id: string; turn: string; granted: string[] } | null): void {
    const seconds = this.ctx.askSeconds;
    const tool = r.tool_name ?? "";
    const input = r.tool_input ?? {};
    const o = { seconds: seconds + 5, source: "claude-hook" };
    // [ASK8] A dialog unanswered in the room stays on the terminal for its person; under `-p`
    // Claude Code's own rules refuse the call.
    const ifUnanswered = r.mode === "print" ? "deny" : "ask_in_terminal";
    const reqs = (
      tool === "AskUserQuestion"
        ? questionAsks(input, o)
        : [permissionAsk({ tool, input, toolUseId: r.tool_use_id ?? null }, o)]
    ).map((req) => ({ ...req, ifUnanswered }) as const);
    if (!run || !reqs.length) return this.ctx.control.askAnswer(r.key, { closed: "no turn to ask for" });
    const ids = reqs.map(() => newId("ask"));
    this.entries.push({
      key: r.key,
      ask_ids: ids,
      run_id: run.id,
      turn: run.turn,
      mode: r.mode ?? "dialog",
      tool,
      input,
      answers: {},
      sent: false,
      delivered: false,
      ended: null,
    });
    this.ctx.queue(reqs.map((req, i) => askedEvent(run.id, ids[i], req)));
    if (this.entries.length > 100) this.entries.splice(0, this.entries.length - 100);
  }

  /**
   * [CON6] Claude Code waits for its person (a Notification): during a turn, asked in the room
   * as a notice (a permission prompt is asked by its PermissionRequest already); after it
   * (idle), said in the room — a finished run cannot ask.
   */
  notification(type: string, message: string, run: { id: string; turn: string } | null): void {
    if (type === "permission_prompt") return;
    if (run) return this.notice(message || "Claude Code is waiting for you", run);
    if (type === "idle_prompt")
      this.ctx.queue([
        {
          type: "message.posted",
          space_id: this.ctx.spaceId,
          text: `Claude Code is waiting for your input in the terminal (session ${this.ctx.sid}).`,
        },
      ]);
  }

  private notice(message: string, run: { id: string; turn: string }): void {
    const id = newId("ask");
    this.entries.push({
      key: `notice-${id}`,
      ask_ids: [id],
      run_id: run.id,
      turn: run.turn,
      mode: "notice",
      tool: "",
      input: {},
      answers: {},
      sent: false,
      delivered: false,
      ended: null,
    });
    this.ctx.queue([
      askedEvent(run.id, id, {
        kind: "question",
        question: clipUtf8(`Claude Code needs you at the terminal: ${message}`, LIMITS.askQuestion),
        options: [{ id: "seen", label: "I'll look at the terminal" }],
        expiresInSeconds: this.ctx.askSeconds,
        ifUnanswered: "ask_in_terminal",
        source: "claude-notification",
      }),
    ]);
  }

  owns(askId: string): boolean {
    return this.entries.some((e) => e.ask_ids.includes(askId));
  }

  /** A person's answer, pushed by Chips (again after a reconnect, until reported). */
  answered(f: Answered, run: { turn: string; granted: string[] } | null): void {
    const e = this.entries.find((x) => x.ask_ids.includes(f.ask_id));
    if (!e || e.answers[f.ask_id]) return; // not ours, or a redelivery
    e.answers[f.ask_id] = {
      person_id: f.actor.id,
      at: f.ts,
      seq: f.seq,
      decision: f.decision ?? null,
      option_id: f.option_id ?? null,
      text: f.text ?? null,
      note: f.note ?? null,
      scope: f.scope ?? null,
    };
    if (e.ended) return this.settle(e, [f.ask_id], "rejected", e.ended);
    if (e.mode === "notice") {
      e.ended = "answered in the room";
      return this.settle(e, [f.ask_id], "applied");
    }
    if (!e.ask_ids.every((id) => e.answers[id])) return; // another question of the call still waits
    const answers = e.ask_ids.map((id) => e.answers[id]);
    let out: object;
    if (e.tool === "AskUserQuestion") {
      const input = answeredInput(e.input, answers);
      out = input
        ? hookOutput(e.mode, true, input, "Answered in the Chips room")
        : hookOutput(e.mode, false, null, "The room's answers did not fit the question.");
    } else {
      const a = answers[0];
      const allow = a.decision === "allow" || a.decision === "allow_for_run";
      if (a.decision === "allow_for_run" && run && e.turn === run.turn) {
        // [CON3] For this run (this turn): the ask's scope — the tool — and nothing wider.
        const scope = a.scope ?? e.tool;
        if (scope === e.tool && !run.granted.includes(scope)) run.granted.push(scope);
        this.ctx.control.grants(e.turn, run.granted);
      }
      out = hookOutput(e.mode, allow, null, allow ? "Allowed in the Chips room" : deniedMessage(a.note));
    }
    e.delivered = true;
    this.ctx.control.askAnswer(e.key, { output: out });
  }

  /** Chips closed an ask (expired, the run finished): the hook steps aside. */
  closed(f: Closed): void {
    const e = this.entries.find((x) => x.ask_ids.includes(f.ask_id));
    if (!e || e.ended) return;
    e.ended = `the ask was closed (${f.reason})`;
    this.ctx.control.askAnswer(e.key, { closed: f.reason });
    this.closeRest(e, f.ask_id);
  }

  /** How the hook's wait ended ([CON4]): each ask gets its receipt or its close. */
  end(r: AskRecord): void {
    const e = this.entries.find((x) => x.key === r.key);
    this.ctx.control.forgetAsk(r.key);
    if (!e || e.ended) return;
    const waited = `${this.ctx.askSeconds} s`;
    const takeover =
      e.mode === "dialog" ? "the terminal's own prompt took over" : "Claude Code's own permission rules decided";
    switch (r.result) {
      case "applied":
        e.ended = "applied";
        return this.settle(e, e.ask_ids, "applied");
      case "elsewhere":
        e.ended = "answered at the terminal first";
        return this.each(e, "answered_elsewhere", r.note ?? "answered at the terminal");
      case "expired":
        e.ended = "the answer came after the hook stopped waiting";
        return this.each(e, "expired", `no answer in ${waited}: ${takeover}`);
      case "unreachable":
        e.ended = "the answer came after the hook stopped waiting";
        if (this.ctx.unsend(e.ask_ids)) return; // never sent: nobody saw it, nothing to close
        return this.each(e, "cancelled", `Chips did not confirm the ask in time: ${takeover}`);
      default:
        e.ended = "the Claude Code session had ended";
        return this.each(e, "cancelled", "the Claude Code session ended");
    }
  }

  /**
   * A call ran (its PostToolUse), or ended refused (`allowed` false): if the room's answer never reached its hook, the terminal's
   * dialog was answered first. Said here, in the session's order, because the hook sees it in
   * the transcript only on its next look — after the turn's end may already have closed the ask.
   */
  toolRan(tool: string, input: Record<string, unknown>, allowed = true): void {
    const call = canon(input);
    for (const e of this.entries.filter((x) => x.mode === "dialog" && !x.ended && !x.delivered)) {
      if (e.tool !== tool || canon(e.input) !== call) continue;
      e.ended = "answered at the terminal first";
      this.ctx.control.askAnswer(e.key, { closed: "answered_elsewhere" });
      this.each(e, "answered_elsewhere", `answered ${allowed ? "Allow" : "No"} at the terminal`);
    }
  }

  /** The turn ended (or a new one began): what still waits is over; Chips closes it with the run ([ASK5]). */
  turnEnded(runId: string): void {
    for (const e of this.entries.filter((x) => x.run_id === runId && !x.ended)) {
      e.ended = "the turn had ended";
      if (e.mode !== "notice") this.ctx.control.askAnswer(e.key, { closed: "run_finished" });
    }
  }

  /** [CON6] The session moved on (any hook call): a notice still waiting was answered at the terminal. */
  movedOn(): void {
    for (const e of this.entries.filter((x) => x.mode === "notice" && !x.ended)) {
      e.ended = "answered at the terminal first";
      this.each(e, "answered_elsewhere", "the session went on at the terminal");
    }
  }

  /** Asks whose `run.asked` left the outbox: the hook learns they reached Chips. True when one did. */
  sentAll(stillQueued: (askId: string) => boolean): boolean {
    let changed = false;
    for (const e of this.entries.filter((x) => !x.sent && !x.ended)) {
      if (e.ask_ids.some(stillQueued)) continue;
      e.sent = changed = true;
      if (e.mode !== "notice") this.ctx.control.askSent(e.key);
    }
    return changed;
  }

  /** Each ask of the entry: its receipt when answered, else its close. */
  private each(e: AskEntry, reason: "answered_elsewhere" | "expired" | "cancelled", note: string) {
    for (const id of e.ask_ids) {
      if (e.answers[id]) this.settle(e, [id], "rejected", e.ended ?? note);
      else
        this.ctx.queue([{ type: "run.ask_closed", run_id: e.run_id, ask_id: id, reason, note, ...denied(e, reason) }]);
    }
  }

  /** The other asks of a call one of whose questions closed: withdrawn. */
  private closeRest(e: AskEntry, closedId: string) {
    for (const id of e.ask_ids.filter((x) => x !== closedId)) {
      if (e.answers[id]) this.settle(e, [id], "rejected", "another question of the same call was closed");
      else
        this.ctx.queue([
          {
            type: "run.ask_closed",
            run_id: e.run_id,
            ask_id: id,
            reason: "cancelled",
            note: "another question of the same call was closed",
          },
        ]);
    }
  }

  private settle(e: AskEntry, ids: string[], result: "applied" | "rejected", reason?: string) {
    this.ctx.queue(
      ids
        .filter((id) => e.answers[id])
        .map((id) => ({
          type: "run.answer_applied" as const,
          run_id: e.run_id,
          ask_id: id,
          result,
          ...(reason && result === "rejected" ? { reason } : {}),
        })),
    );
  }
}
