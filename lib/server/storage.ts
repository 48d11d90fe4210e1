import { problem, type ProblemError } from "@/lib/core/protocol";
import { log } from "./log";

/**
 * Error codes that mean "the database is not there" rather than "this query is wrong":
 * the socket ones, postgres-js's connection states, and PostgreSQL's class 08 (connection
 * exception) and 57P0x (shutdown, crash, starting up) SQLSTATEs.
 */
const GONE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01",
  "57P02",
  "57P03",
]);

/** Whether `e` (or what it wraps: drizzle wraps the driver's error in `cause`) says the database went away. */
export function isStorageGone(e: unknown): boolean {
  for (let x = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === "string" && (GONE.has(code) || code.startsWith("08"))) return true;
    if (x instanceof AggregateError && x.errors.some(isStorageGone)) return true;
  }
  return false;
}

/** The answer while the database is unreachable: `503 unavailable` with a `Retry-After`. */
export function unavailable(retryAfter = 2): ProblemError {
  return {
    ...problem(
      "unavailable",
      "storage is unreachable right now; nothing was stored — retry shortly with the same idempotency key",
    ),
    retryAfter,
  };
}

export type StorageState = { available: boolean; since: number };

/**
 * Whether the database is reachable, as this node last saw it. A query failing with a
 * connection error marks it down; while down it is probed every `probeMs` until a probe
 * answers, then marked up — so writes can be refused at once (503) instead of each waiting
 * on a dead connection, and rooms can say "reconnecting to storage". Listeners hear each
 * change once.
 */
export class StorageHealth {
  private state: StorageState = { available: true, since: Date.now() };
  private timer: NodeJS.Timeout | null = null;
  private listeners = new Set<(s: StorageState) => void>();
  private closed = false;

  constructor(
    private probe: () => Promise<unknown>,
    private probeMs = 500,
  ) {}

  get available(): boolean {
    return this.state.available;
  }

  current(): StorageState {
    return this.state;
  }

  onChange(fn: (s: StorageState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Look at an error: answers true (and marks storage down) when it says the database went away. */
  failed(e: unknown, context: string): boolean {
    if (!isStorageGone(e)) return false;
    if (this.state.available) {
      log.warn({ context, err: e }, "storage unreachable: refusing writes with 503 until it answers again");
      this.set(false);
      this.schedule();
    }
    return true;
  }

  /**
   * An error a handler caught, as the code its caller is told: `unavailable` while the
   * database is away (logged once per outage), else `internal` (logged with its context).
   */
  refuse(e: unknown, context: string): "unavailable" | "internal" {
    if (this.failed(e, context)) return "unavailable";
    log.error({ err: e, context }, "handler failed");
    return "internal";
  }

  /** Probe now (readiness): answers whether the database answered. */
  async check(): Promise<boolean> {
    try {
      await this.probe();
      if (!this.state.available) this.up();
      return true;
    } catch (e) {
      this.failed(e, "probe");
      return false;
    }
  }

  close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private up() {
    log.info({ downMs: Date.now() - this.state.since }, "storage reachable again");
    this.set(true);
  }

  private schedule() {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check().then((ok) => {
        if (!ok) this.schedule();
      });
    }, this.probeMs);
    this.timer.unref();
  }

  private set(available: boolean) {
    this.state = { available, since: Date.now() };
    for (const fn of this.listeners) {
      try {
        fn(this.state);
      } catch (e) {
        log.error({ err: e }, "storage listener failed");
      }
    }
  }
}
