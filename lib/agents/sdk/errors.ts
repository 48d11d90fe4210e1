import type { FieldError } from "../../core/protocol/errors";

/** What a failed request said: the server's problem+json, or why there was no answer. */
export interface ChipsErrorInit {
  /** The problem's stable `code` (`validation_failed`, `run_paused`, …), or `network_error` / `bad_response`. */
  code: string;
  /** The HTTP status; 0 when no answer arrived. */
  status: number;
  detail: string;
  errors?: FieldError[];
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * A request the server refused (any 4xx but 429, at once) or that kept failing until the
 * retry budget ran out (network errors, 5xx, 429, 503). Branch on `code`, never on `message`.
 */
export class ChipsError extends Error {
  readonly code: string;
  readonly status: number;
  readonly detail: string;
  /** Field errors, each with a JSON pointer into the request body (`/events/3/progress`). */
  readonly errors: FieldError[];
  readonly retryAfterMs?: number;

  constructor(init: ChipsErrorInit) {
    super(`${init.code}: ${init.detail}`, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.name = "ChipsError";
    this.code = init.code;
    this.status = init.status;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }

  /** True when sending the same request again may succeed (no answer, 5xx, 429, 503). */
  get retryable(): boolean {
    return isRetryableStatus(this.status);
  }
}

/** Statuses worth a retry of the same body: none (network), 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

/** True for a ChipsError (also across copies of this module). */
export function isChipsError(e: unknown): e is ChipsError {
  return (
    e instanceof ChipsError ||
    (e instanceof Error && e.name === "ChipsError" && typeof (e as ChipsError).code === "string")
  );
}
