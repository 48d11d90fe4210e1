import {
  newId,
  problem,
  type IncomingEvent,
  type ProblemError,
  type Receipt,
  type Run,
  type StoredEvent,
} from "@/lib/core/protocol";
import { changesState, SETTLED_BY_FINISH, type RunRecord } from "@/lib/core/projection/receipts";

type Of<T extends IncomingEvent["type"]> = Extract<IncomingEvent, { type: T }>;

const refuse = (code: ProblemError["code"], detail: string, pointer: string) =>
  problem(code, detail, [{ pointer, message: detail }]);

/**
 * [RUN1] which command may be sent now: pause only while running, resume only while paused,
 * steer and cancel while queued, running or paused; one state-changing command pending at a time.
 */
export function judgeCommand(run: Run, e: Of<"run.command">, base: string): ProblemError | null {
  const unsupported = judgeCapability(run, e, base);
  if (unsupported) return unsupported;
  const untaken = judgeUntaken(run, e, base);
  if (untaken) return untaken;
  const allowed =
    e.command === "pause"
      ? run.state === "running"
      : e.command === "resume"
        ? run.state === "paused"
        : ["queued", "running", "paused"].includes(run.state);
  if (!allowed)
    return refuse("invalid_transition", `a ${run.state} run cannot be sent ${e.command}`, `${base}/command`);
  if (changesState(e.command) && run.pending)
    return refuse("command_pending", `the run is ${run.pending}: wait for the harness to answer`, `${base}/command`);
  return null;
}

/**
 * [RUN2] a command the run's harness does not obey is refused before anything is stored: a
 * button nobody answers would leave the run "pausing" forever. No declaration: all obeyed.
 */
function judgeCapability(run: Run, e: Of<"run.command">, base: string): ProblemError | null {
  if (!run.commands || run.commands.includes(e.command)) return null;
  const why = run.commands.length ? `it obeys only ${run.commands.join(", ")}` : "it is watch-only";
  return {
    ...refuse("command_not_supported", `this run's harness does not take ${e.command}: ${why}`, `${base}/command`),
    extensions: { commands: run.commands },
  };
}

const ONCE_TAKEN = {
  steer: "steered once a runner takes it",
  pause: "paused once its runner starts it",
  resume: "resumed once its runner has started it and it was paused",
} as const;

/**
 * [RUN3] a queued run nobody has taken has nobody to deliver a command to: a steer, pause or
 * resume is refused until a runner holds it (after `run.assigned`), not accepted and never
 * delivered. Cancel needs nobody: the run ends at once ({@link derivedEvents}).
 */
function judgeUntaken(run: Run, e: Of<"run.command">, base: string): ProblemError | null {
  if (run.state !== "queued" || run.harness_id || e.command === "cancel") return null;
  return refuse(
    "run_not_taken",
    `no runner has taken this run yet: it can be ${ONCE_TAKEN[e.command]} (cancel works now)`,
    `${base}/command`,
  );
}

export type AckVerdict = { kind: "ok" } | { kind: "replay"; body: string } | { kind: "refuse"; problem: ProblemError };

/** An ack names a command of that run; a second ack with the same result is the first's replay. */
export function judgeAck(
  cmd: Receipt | null | undefined,
  run: Run,
  e: Of<"run.command_acked">,
  ackBody: string | undefined,
  base: string,
): AckVerdict {
  if (!cmd || cmd.run_id !== run.id)
    return {
      kind: "refuse",
      problem: refuse("validation_failed", "no such command for this run", `${base}/command_id`),
    };
  const settledByServer = cmd.receipt === "rejected" && cmd.reason === SETTLED_BY_FINISH && cmd.ack_seq === null;
  if ((cmd.receipt === "applied" || cmd.receipt === "rejected") && !settledByServer) {
    if (cmd.receipt === e.result && ackBody) return { kind: "replay", body: ackBody };
    return {
      kind: "refuse",
      problem: refuse("invalid_transition", `the command was already acked ${cmd.receipt}`, `${base}/result`),
    };
  }
  return { kind: "ok" };
}

export function judgeDelivered(cmd: Receipt | null | undefined, run: Run, base: string): ProblemError | null {
  if (!cmd || cmd.run_id !== run.id)
    return refuse("validation_failed", "no such command for this run", `${base}/command_id`);
  if (cmd.receipt !== "accepted")
    return refuse("invalid_transition", "the command was already delivered", `${base}/command_id`);
  return null;
}

const finished = (run: Run, summary: string): IncomingEvent => ({
  v: 1,
  type: "run.finished",
  id: newId("event"),
  workspace_id: run.workspace_id,
  space_id: run.space_id,
  run_id: run.id,
  outcome: "cancelled",
  summary,
});

/**
 * The system events a command event brings with it, appended right after it in the same
 * transaction ([RUN1]): a queued run is cancelled at once; a cancel the harness applied
 * ends the run cancelled, unless the harness already finished it. `before` is the run and
 * its receipts as they were when the event arrived.
 */
export function derivedEvents(before: RunRecord, e: StoredEvent): IncomingEvent[] {
  const run = before.run;
  if (!run) return [];
  if (e.type === "run.command" && e.command === "cancel" && run.state === "queued")
    return [finished(run, "Cancelled before a runner took it.")];
  if (e.type === "run.command_acked" && e.result === "applied" && run.state !== "finished") {
    const cmd = before.receipts.find((r) => r.command_id === e.command_id);
    if (cmd?.command === "cancel") return [finished(run, "Cancelled.")];
  }
  return [];
}
