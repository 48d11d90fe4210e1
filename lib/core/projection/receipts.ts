import type { Receipt, Run, StoredEvent } from "@/lib/core/protocol";
import type { Stored } from "./run";

/** The pending flag a state-changing command sets on its run until the harness acks it ([RUN1]). */
export const PENDING_OF = { pause: "pausing", resume: "resuming", cancel: "cancelling" } as const satisfies Record<
  string,
  Run["pending"]
>;

export const changesState = (command: Receipt["command"]): command is keyof typeof PENDING_OF => command in PENDING_OF;

/** The reason a command left open when its run ended is settled with (an ack may still come). */
export const SETTLED_BY_FINISH = "the run finished before the harness answered";

/** The reason a cancel of a run nobody had taken yet is applied with at once. */
const CANCELLED_WHILE_QUEUED = "cancelled before a runner took it";

/** A run and its commands' receipts, oldest first: what one event of the run may change. */
export interface RunRecord {
  run: Run | null;
  receipts: Receipt[];
}

const open = (r: Receipt) => r.receipt === "accepted" || r.receipt === "delivered";

/**
 * How a command event (or a run's end) moves receipts and, once a harness acks, its run
 * ([RUN1], [UI5]). `run` is the run already folded for the event (foldRun), `before` the
 * run as it was when the event arrived.
 */
export function foldReceipts(before: Run | null, run: Run | null, receipts: Receipt[], e: StoredEvent): RunRecord {
  switch (e.type) {
    case "run.command":
      return run ? sent(run, before!, receipts, e) : { run, receipts };
    case "run.command_delivered":
      return {
        run,
        receipts: update(receipts, e.command_id, (r) => ({ ...r, receipt: "delivered", delivered_at: e.ts })),
      };
    case "run.command_acked":
      return acked(run, receipts, e);
    case "run.finished":
      // A finished run's open commands can no longer be delivered or applied: settled rejected.
      return {
        run,
        receipts: receipts.some(open)
          ? receipts.map((r) =>
              open(r) ? { ...r, receipt: "rejected", reason: SETTLED_BY_FINISH, acked_at: e.ts } : r,
            )
          : receipts,
      };
    default:
      return { run, receipts };
  }
}

function update(receipts: Receipt[], commandId: string, change: (r: Receipt) => Receipt): Receipt[] {
  const at = receipts.findIndex((r) => r.command_id === commandId);
  return at < 0 ? receipts : receipts.map((r, i) => (i === at ? change(r) : r));
}

/** A person's command is accepted; a cancel of a queued run is applied at once (Chips then finishes it). */
function sent(run: Run, before: Run, receipts: Receipt[], e: Stored<"run.command">): RunRecord {
  const receipt: Receipt = {
    command_id: e.command_id,
    workspace_id: e.workspace_id,
    run_id: run.id,
    harness_id: before.harness_id,
    command: e.command,
    text: e.text ?? null,
    person_id: e.actor.id,
    receipt: "accepted",
    reason: null,
    seq: e.seq,
    ack_seq: null,
    created_at: e.ts,
    delivered_at: null,
    acked_at: null,
  };
  if (e.command === "cancel" && before.state === "queued") {
    return {
      run,
      receipts: [...receipts, { ...receipt, receipt: "applied", reason: CANCELLED_WHILE_QUEUED, acked_at: e.ts }],
    };
  }
  const pending = changesState(e.command) ? PENDING_OF[e.command] : run.pending;
  return { run: { ...run, pending }, receipts: [...receipts, receipt] };
}

/** The harness answers: the receipt settles; an applied pause or resume changes the run's state. */
function acked(run: Run | null, receipts: Receipt[], e: Stored<"run.command_acked">): RunRecord {
  const cmd = receipts.find((r) => r.command_id === e.command_id);
  if (!cmd) return { run, receipts };
  const next = update(receipts, cmd.command_id, (r) => ({
    ...r,
    receipt: e.result,
    reason: e.reason ?? null,
    ack_seq: e.seq,
    acked_at: e.ts,
    delivered_at: r.delivered_at ?? e.ts, // an ack means the harness had it
  }));
  if (!run || !changesState(cmd.command) || run.state === "finished") return { run, receipts: next };
  const cleared: Run = { ...run, pending: null };
  if (e.result === "rejected") return { run: cleared, receipts: next };
  if (cmd.command === "pause") return { run: { ...cleared, state: "paused" }, receipts: next };
  if (cmd.command === "resume") return { run: { ...cleared, state: "running" }, receipts: next };
  return { run: cleared, receipts: next }; // cancel applied: Chips appends run.finished{cancelled}
}
