import type { Command, CommandControls } from "../sdk";

/** A command received, waiting for the worker's safe point to be acted on. */
export interface Pending {
  command: Command;
  controls: CommandControls;
}

/** What waits: the latest pause, resume and cancel, and every steer in order. */
export interface CommandQueue {
  pause?: Pending;
  resume?: Pending;
  cancel?: Pending;
  steers: Pending[];
}

export function take<K extends "pause" | "resume" | "cancel">(q: { [k in K]?: Pending }, k: K): Pending {
  const p = q[k]!;
  q[k] = undefined;
  return p;
}

/** Answer a command `rejected` with the reason; a failure to answer is logged, not thrown. */
export async function refuse(p: Pending, reason: string, log: (line: string) => void) {
  try {
    await p.controls.reject(reason);
    log(`demo: rejected ${p.command.command} ${p.command.command_id}: ${reason}`);
  } catch (e) {
    log(`demo: could not reject ${p.command.command} ${p.command.command_id}: ${(e as Error).message}`);
  }
}

/** Commands that came too late to act on (steers already acked aside): answered rejected, so no receipt hangs. */
export async function rejectLeftovers(q: CommandQueue, acked: WeakSet<Pending>, log: (line: string) => void) {
  const left = [q.pause, q.resume, q.cancel, ...q.steers.filter((s) => !acked.has(s))].filter((p): p is Pending => !!p);
  q.pause = q.resume = q.cancel = undefined;
  q.steers = [];
  for (const p of left) await refuse(p, "the run has finished", log);
}
