import type { Command, StoredEvent } from "./types";

/** How a handler answers its command: each posts the `run.command_acked` (with retries). */
export interface CommandControls {
  /** The command is done (for a pause: the run has stopped). Calling it again answers the same ack. */
  apply(): Promise<StoredEvent>;
  /** The command will not be done; `reason` is shown beside the receipt. */
  reject(reason: string): Promise<StoredEvent>;
}

/**
 * Called once per command (deduplicated by `command_id`). It may answer at once or later
 * (a pause once the work has stopped). Handlers are not awaited one after another: a
 * handler that waits does not hold up the next command. A throw or rejection goes to
 * `onError`; the command stays unanswered.
 */
export type CommandHandler = (command: Command, controls: CommandControls) => unknown;

/** Posts acks: the client's `ack`. */
export interface Acker {
  ack(runId: string, commandId: string, result: "applied" | "rejected", reason?: string): Promise<StoredEvent>;
}

/** A live source of commands (a socket or a poller). */
export interface CommandSubscription {
  /** True while connected (the socket) or while the last poll succeeded. */
  readonly connected: boolean;
  /** Commands received again and dropped as duplicates. */
  readonly duplicates: number;
  /** Resolves once connected (or the first poll answered); rejects if the credential is refused. */
  ready(): Promise<void>;
  /** Stop receiving; the socket is closed, the poller stops. */
  close(): void;
}

/** True for a payload that is a `run.command` (anything else on the channel is ignored). */
export function isCommand(payload: unknown): payload is Command {
  const p = payload as { type?: unknown; command_id?: unknown; run_id?: unknown } | null;
  return !!p && p.type === "run.command" && typeof p.command_id === "string" && typeof p.run_id === "string";
}

const REMEMBER = 10_000;

/**
 * Hands each command to its handler once: the server sends a command again on every
 * (re)connect until it is acked ([RT3]), and a poller may see what a socket saw.
 */
export class CommandDispatcher {
  private readonly seen = new Set<string>();
  duplicates = 0;

  constructor(private readonly acker: Acker) {}

  /** Call `handler` unless this command was handed out before; answers whether it was new. */
  dispatch(command: Command, handler: CommandHandler, onError: (err: unknown) => void): boolean {
    if (this.seen.has(command.command_id)) {
      this.duplicates++;
      return false;
    }
    this.seen.add(command.command_id);
    if (this.seen.size > REMEMBER) this.seen.delete(this.seen.values().next().value as string);
    const controls = this.controls(command);
    try {
      const r = handler(command, controls) as Promise<unknown> | undefined;
      if (r && typeof r.then === "function") r.then(undefined, onError);
    } catch (err) {
      onError(err);
    }
    return true;
  }

  private controls(command: Command): CommandControls {
    let answer: { result: string; promise: Promise<StoredEvent> } | null = null;
    const settle = (result: "applied" | "rejected", reason?: string) => {
      if (answer?.result === result) return answer.promise;
      const promise = this.acker.ack(command.run_id!, command.command_id, result, reason);
      const mine = { result, promise };
      answer = mine;
      // A failed ack may be tried again.
      promise.catch(() => {
        if (answer === mine) answer = null;
      });
      return promise;
    };
    return { apply: () => settle("applied"), reject: (reason: string) => settle("rejected", reason) };
  }
}

/** A promise with its resolve/reject outside (for `ready()`). */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // nobody may be listening
  return { promise, resolve, reject };
}
