import type { Intent } from "./intents";
import { askApplies, type AskSeen } from "./ask-sequences";

/**
 * A run as the property test's world (event-sequences.ts) knows it, and what [RUN1] lets
 * each intent do to it now: the world sends only what must succeed.
 */

interface CommandSeen {
  id: string;
  command: string;
  /** Not yet acked by the harness (a command the run's end settled may still be acked late). */
  open: boolean;
}

export interface RunSlot {
  id: string;
  /** Who drives it: the harness (posted straight), or the runner (queued, then taken). */
  by: "harness" | "runner";
  state: "queued" | "running" | "paused" | "finished";
  routed: boolean;
  /** A queued run the runner took (its run.started): the runner may now speak for it. */
  taken: boolean;
  pending: boolean;
  steps: string[];
  added: number;
  progress: number;
  tokens: number;
  sequence: number;
  commands: CommandSeen[];
  /** Finished `succeeded` (what a task's prerequisite waits for). */
  succeeded: boolean;
  /** Tool calls made, and those started and not finished ([TOOL2]). */
  calls: number;
  openCalls: string[];
  /** Its asks ([ASK1]), oldest first. */
  asks: AskSeen[];
}

/** Whether an intent about a run may be sent for it now ([RUN1]). */
export function applies(i: Intent, r: RunSlot): boolean {
  switch (i.t) {
    case "take":
      return r.state === "queued" && r.routed;
    case "step":
    case "status":
      return r.state === "running";
    case "command":
      if (r.state === "finished") return false;
      // [RUN3] a queued run takes a steer only once a runner holds it: one that will be routed.
      if (i.command === "steer") return r.state !== "queued" || r.routed;
      if (r.pending) return false; // one state change pending at a time
      return i.command === "pause" ? r.state === "running" : i.command === "resume" ? r.state === "paused" : true;
    case "ack":
      // Only a run with a harness can be acked: posted straight, or taken by the runner.
      return (r.by === "harness" || r.taken) && r.commands.some((c) => c.open);
    case "runner":
      return r.taken && r.state !== "finished";
    case "finish":
      return r.state === "running" || r.state === "paused";
    case "annotate":
      return true;
    case "tool":
      return (r.by === "harness" || r.taken) && (r.state === "running" || r.state === "paused");
    case "ask":
    case "answer":
    case "ask-applied":
    case "ask-close":
      return askApplies(i, r);
    default:
      return false;
  }
}

/** A run just made: nothing asked of it yet. */
export function newSlot(
  id: string,
  by: RunSlot["by"],
  state: RunSlot["state"],
  routed: boolean,
  steps: string[],
): RunSlot {
  return {
    id,
    by,
    state,
    routed,
    taken: false,
    pending: false,
    steps,
    added: 0,
    progress: 0,
    tokens: 0,
    sequence: 0,
    commands: [],
    succeeded: false,
    calls: 0,
    openCalls: [],
    asks: [],
  };
}
