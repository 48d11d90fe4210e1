import { log } from "./log";

/**
 * A part of the server that keeps something per workspace (or per credential, harness or
 * client address of one) between requests: a writer's heads, cached credentials, presence,
 * the fan-out's last seq. `release` lets go of what has been quiet since before `cutoff`
 * (ms since epoch) and is not in use; `held` counts what is kept now, by kind.
 */
export interface HeldState {
  release(cutoff: number, now: number): void;
  held(): Record<string, number>;
}

/**
 * Lets go of idle workspaces' state ([SCL1], docs/OPERATIONS.md): every `quietMs / 4` (at
 * most once a minute) one timer for the whole node asks each part to release what has been
 * quiet for `quietMs`. What comes back on the next request is read again from the store —
 * a cache miss, never a changed answer. No part keeps a timer of its own for a workspace
 * that is idle, so a node's cost at rest is its sockets and this one timer, however many
 * workspaces it has served.
 */
export class IdleRelease {
  private parts = new Set<HeldState>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly quietMs: number,
    private now: () => number = Date.now,
  ) {}

  /** Register a part; answers the function that removes it (a transport closing). */
  add(part: HeldState): () => void {
    this.parts.add(part);
    return () => this.parts.delete(part);
  }

  start() {
    if (this.timer || this.quietMs <= 0) return;
    const every = Math.min(60_000, Math.max(50, this.quietMs / 4));
    this.timer = setInterval(() => this.sweep(), every);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One round: each part lets go of what was quiet for the whole period. */
  sweep() {
    const now = this.now();
    for (const p of this.parts) {
      try {
        p.release(now - this.quietMs, now);
      } catch (e) {
        log.error({ err: e }, "releasing idle workspace state failed");
      }
    }
  }

  /** What every part keeps now, by kind, added up (tests and benchmarks read it in-process). */
  held(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const p of this.parts) for (const [k, n] of Object.entries(p.held())) out[k] = (out[k] ?? 0) + n;
    return out;
  }
}
