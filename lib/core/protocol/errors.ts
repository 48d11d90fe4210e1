/**
 * The closed set of error codes ([HTTP2]), each with its HTTP status. Errors cross module
 * boundaries by `code`, never by `instanceof`.
 */
export const ERROR_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  unsupported_media_type: 415,
  payload_too_large: 413,
  invalid_json: 400,
  bad_request: 400,
  unsupported_version: 422,
  unknown_type: 422,
  validation_failed: 422,
  idempotency_key_reused: 409,
  event_id_conflict: 409,
  sequence_conflict: 409,
  space_not_found: 404,
  run_not_found: 404,
  workspace_not_found: 404,
  run_exists: 409,
  run_finished: 409,
  run_paused: 409,
  invalid_transition: 409,
  command_pending: 409,
  command_not_supported: 409,
  run_not_taken: 409,
  revision_conflict: 409,
  prerequisites_unmet: 409,
  scope_overlap: 409,
  budget_exhausted: 409,
  task_not_found: 404,
  ask_not_found: 404,
  ask_closed: 409,
  rate_limited: 429,
  overloaded: 503,
  unavailable: 503,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLES: Record<ErrorCode, string> = {
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "Not found",
  unsupported_media_type: "Unsupported media type",
  payload_too_large: "Payload too large",
  invalid_json: "Invalid JSON",
  bad_request: "Bad request",
  unsupported_version: "Unsupported protocol version",
  unknown_type: "Unknown event type",
  validation_failed: "Validation failed",
  idempotency_key_reused: "Idempotency key reused with another body",
  event_id_conflict: "Event id reused with another body",
  sequence_conflict: "Runner event sequence already passed",
  space_not_found: "Space not found",
  run_not_found: "Run not found",
  workspace_not_found: "Workspace not found",
  run_exists: "Run exists",
  run_finished: "Run finished",
  run_paused: "Run paused",
  invalid_transition: "Invalid transition",
  command_pending: "Command pending",
  command_not_supported: "Command not supported by this run's harness",
  run_not_taken: "No runner has taken the run yet",
  revision_conflict: "Saved over a newer revision",
  prerequisites_unmet: "Prerequisites unmet",
  scope_overlap: "Write scope overlaps a running task",
  budget_exhausted: "Budget exhausted",
  task_not_found: "Task not found",
  ask_not_found: "Ask not found",
  ask_closed: "Already answered or closed",
  rate_limited: "Rate limited",
  overloaded: "Overloaded",
  unavailable: "Storage unavailable",
  internal: "Internal server error",
};

export interface FieldError {
  /** JSON pointer into the request body, e.g. `/events/3/progress`. */
  pointer: string;
  message: string;
}

/** A protocol error: a stable code, a human detail, and where it applies the fields at fault. */
export interface ProblemError {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  retryAfter?: number;
  /** The request's body was left unread (413 past the limit): its connection cannot carry another request. */
  unread?: true;
  /**
   * RFC 9457 extension members: what the caller needs to act on a refusal, e.g. the room as
   * it now is for `revision_conflict`, the figures for `budget_exhausted`.
   */
  extensions?: Record<string, unknown>;
}

export function problem(code: ErrorCode, detail: string, errors?: FieldError[]): ProblemError {
  return errors ? { code, detail, errors } : { code, detail };
}

/** A problem with one field at fault: `pointer` into the body (`/role`), the path (`/path/ws`) or the query (`/query/after`). */
export const problemAt = (code: ErrorCode, detail: string, pointer: string): ProblemError =>
  problem(code, detail, [{ pointer, message: detail }]);

/** An exception carrying a ProblemError, for code paths that must unwind. */
export class ChipsError extends Error {
  readonly problem: ProblemError;
  constructor(p: ProblemError) {
    super(`${p.code}: ${p.detail}`);
    this.problem = p;
  }
}

export function isProblemCarrier(e: unknown): e is { problem: ProblemError } {
  return (
    typeof e === "object" &&
    e !== null &&
    "problem" in e &&
    typeof (e as { problem: { code?: unknown } }).problem?.code === "string" &&
    (e as { problem: { code: string } }).problem.code in ERROR_STATUS
  );
}

/** RFC 9457 body for a problem. */
export function problemBody(p: ProblemError) {
  const status = ERROR_STATUS[p.code];
  return {
    type: `https://chips.dev/problems/${p.code.replace(/_/g, "-")}`,
    title: ERROR_TITLES[p.code],
    status,
    detail: p.detail,
    ...p.extensions,
    code: p.code,
    ...(p.errors ? { errors: p.errors } : {}),
  };
}
