import { newId, problem, type IncomingEvent, type ProblemError } from "@/lib/protocol";
import type { commands } from "@/db/schema";
import type { RunModel } from "./projection";

export type CommandModel = typeof commands.$inferSelect;
type Of<T extends IncomingEvent["type"]> = Extract<IncomingEvent, { type: T }>;

/** The pending flag a state-changing command sets on its run until the harness acks it ([RUN1]). */
export const PENDING_OF = { pause: "pausing", resume: "resuming", cancel: "cancelling" } as const;
const STATE_CHANGING = new Set(["pause", "resume", "cancel"]);

const refuse = (code: ProblemError["code"], detail: string, pointer: string) => problem(code, detail, [{ pointer, message: detail }]);

/**
 * [RUN1] which command may be sent now: pause only while running, resume only while paused,
 * steer and cancel while queued, running or paused; one state-changing command pending at a time.
 */
export function judgeCommand(run: RunModel, e: Of<"run.command">, base: string): ProblemError | null {
  const allowed =
    e.command === "pause" ? run.state === "running" : e.command === "resume" ? run.state === "paused" : ["queued", "running", "paused"].includes(run.state);
  if (!allowed) return refuse("invalid_transition", `a ${run.state} run cannot be sent ${e.command}`, `${base}/command`);
  if (STATE_CHANGING.has(e.command) && run.pending) return refuse("command_pending", `the run is ${run.pending}: wait for the harness to answer`, `${base}/command`);
  return null;
}

/** The reason a command left open when its run ended is settled with (an ack may still come). */
export const SETTLED_BY_FINISH = "the run finished before the harness answered";

export type AckVerdict = { kind: "ok" } | { kind: "replay"; body: string } | { kind: "refuse"; problem: ProblemError };

/** An ack names a command of that run; a second ack with the same result is the first's replay. */
export function judgeAck(cmd: CommandModel | null | undefined, run: RunModel, e: Of<"run.command_acked">, ackBody: string | undefined, base: string): AckVerdict {
  if (!cmd || cmd.runId !== run.id) return { kind: "refuse", problem: refuse("validation_failed", "no such command for this run", `${base}/command_id`) };
  const settledByServer = cmd.receipt === "rejected" && cmd.reason === SETTLED_BY_FINISH && cmd.ackSeq === null;
  if ((cmd.receipt === "applied" || cmd.receipt === "rejected") && !settledByServer) {
    if (cmd.receipt === e.result && ackBody) return { kind: "replay", body: ackBody };
    return { kind: "refuse", problem: refuse("invalid_transition", `the command was already acked ${cmd.receipt}`, `${base}/result`) };
  }
  return { kind: "ok" };
}

export function judgeDelivered(cmd: CommandModel | null | undefined, run: RunModel, base: string): ProblemError | null {
  if (!cmd || cmd.runId !== run.id) return refuse("validation_failed", "no such command for this run", `${base}/command_id`);
  if (cmd.receipt !== "accepted") return refuse("invalid_transition", "the command was already delivered", `${base}/command_id`);
  return null;
}

/** The system events a command event brings with it, appended right after it in the same transaction. */
export interface CommandEffect {
  run: RunModel;
  command: CommandModel;
  followUps: IncomingEvent[];
}

const finished = (run: RunModel, summary: string): IncomingEvent =>
  ({
    v: 1,
    type: "run.finished",
    id: newId("event"),
    workspace_id: run.workspaceId,
    space_id: run.spaceId,
    run_id: run.id,
    outcome: "cancelled",
    summary,
  }) as IncomingEvent;

/** How a command event changes its command's receipt and its run. */
export function applyCommandEvent(
  e: Of<"run.command"> | Of<"run.command_delivered"> | Of<"run.command_acked">,
  run: RunModel,
  cmd: CommandModel | null,
  seq: number,
  ts: string,
  personId: string | null,
): CommandEffect {
  switch (e.type) {
    case "run.command": {
      const command: CommandModel = {
        id: e.command_id,
        workspaceId: run.workspaceId,
        runId: run.id,
        harnessId: run.harnessId,
        command: e.command,
        text: e.text ?? null,
        personId: personId!,
        receipt: "accepted",
        reason: null,
        seq,
        ackSeq: null,
        createdAt: ts,
        deliveredAt: null,
        ackedAt: null,
      };
      if (e.command === "cancel" && run.state === "queued") {
        // Nobody runs it yet: a queued run is cancelled at once.
        return {
          run,
          command: { ...command, receipt: "applied", reason: "cancelled before a runner took it", ackedAt: ts },
          followUps: [finished(run, "Cancelled before a runner took it.")],
        };
      }
      const pending = e.command in PENDING_OF ? PENDING_OF[e.command as keyof typeof PENDING_OF] : run.pending;
      return { run: { ...run, pending }, command, followUps: [] };
    }
    case "run.command_delivered":
      return { run, command: { ...cmd!, receipt: "delivered", deliveredAt: ts }, followUps: [] };
    case "run.command_acked": {
      const command: CommandModel = { ...cmd!, receipt: e.result, reason: e.reason ?? null, ackSeq: seq, ackedAt: ts, deliveredAt: cmd!.deliveredAt ?? ts };
      if (!STATE_CHANGING.has(cmd!.command)) return { run, command, followUps: [] };
      const cleared = { ...run, pending: null };
      if (e.result === "rejected" || run.state === "finished") return { run: run.state === "finished" ? run : cleared, command, followUps: [] };
      if (cmd!.command === "pause") return { run: { ...cleared, state: "paused" }, command, followUps: [] };
      if (cmd!.command === "resume") return { run: { ...cleared, state: "running" }, command, followUps: [] };
      // cancel applied: the harness stopped; the run ends cancelled (unless the harness already said so).
      return { run: cleared, command, followUps: [finished(run, "Cancelled.")] };
    }
  }
}
