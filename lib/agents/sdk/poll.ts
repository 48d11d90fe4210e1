import { deferred, isCommand, type CommandDispatcher, type CommandHandler, type CommandSubscription } from "./commands";
import type { ChipsError } from "./errors";
import type { Transport } from "./transport";
import type { Command } from "./types";

/** Options of `client.pollCommands`. */
export interface PollOptions {
  /** Wait between polls, ms (default 1000). */
  intervalMs?: number;
  /**
   * Start after this seq (default 0). `GET /api/v1/commands` answers every command of the
   * harness's runs after it, answered or not: a harness that restarts should keep
   * `subscription.after` and start from it.
   */
  after?: number;
  /** Told about failed polls and handler failures (default: console.warn). */
  onError?: (err: unknown) => void;
}

const PAGE = 100;

/**
 * Commands by polling `GET /api/v1/commands?after=SEQ`, for harnesses without sockets
 * ([RT3]). Each poll marks what it returns delivered and counts as presence. A failed poll
 * is tried again at the next interval; a refused credential (401/403) stops the poller.
 */
export class PollCommands implements CommandSubscription {
  private closed = false;
  private ok = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private wake: (() => void) | null = null;
  private readonly first = deferred<void>();
  /** The seq of the newest command seen: where the next poll starts. */
  after: number;

  constructor(
    private readonly transport: Transport,
    private readonly dispatcher: CommandDispatcher,
    private readonly handler: CommandHandler,
    private readonly opts: PollOptions,
    private readonly warn: (err: unknown) => void,
  ) {
    this.after = opts.after ?? 0;
    void this.loop();
  }

  get connected(): boolean {
    return this.ok;
  }

  get duplicates(): number {
    return this.dispatcher.duplicates;
  }

  ready(): Promise<void> {
    return this.first.promise;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
  }

  private async loop() {
    while (!this.closed) {
      let full = false;
      try {
        const page = await this.transport.send<{ commands: unknown[]; next_after: number }>({
          method: "GET",
          path: `/api/v1/commands?after=${this.after}&limit=${PAGE}`,
          retry: false,
        });
        this.ok = true;
        this.first.resolve();
        if (this.closed) return;
        for (const c of page.body.commands)
          if (isCommand(c)) this.dispatcher.dispatch(c as Command, this.handler, this.warn);
        if (page.body.next_after > this.after) this.after = page.body.next_after;
        full = page.body.commands.length >= PAGE;
      } catch (err) {
        this.ok = false;
        const status = (err as ChipsError).status;
        if (status === 401 || status === 403) {
          this.first.reject(err);
          this.warn(err);
          this.closed = true;
          return;
        }
        this.warn(err);
      }
      if (!full) await this.pause(this.opts.intervalMs ?? 1000);
    }
  }

  private pause(ms: number) {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }
}
