import type { FieldError } from "../../core/protocol/errors";
import { clipUtf8 } from "../../core/protocol/clip";
import { ChipsError, isRetryableStatus } from "./errors";
import { backoffMs, parseRetryAfter, sleep, type RetryPolicy } from "./retry";

/** Where and as whom requests go. */
export interface TransportOptions {
  /** The server's base URL, e.g. `http://localhost:3000`. */
  url: string;
  /** A bearer token: the harness's (or, for reading, any credential of the workspace). */
  token: string;
  retry: Required<RetryPolicy>;
  /** One try's time limit before it counts as a network error (default 30 s). */
  requestTimeoutMs?: number;
  /** Stand-in for the global fetch (tests, instrumentation). */
  fetch?: typeof fetch;
}

/** One request: the method, the path under the base URL, and the body sent byte for byte on every try. */
export interface Request {
  method: "GET" | "POST";
  path: string;
  body?: string;
  /** False: one try only (the caller retries on its own schedule). Default true. */
  retry?: boolean;
  /** Gives up the request (a long-poll no longer wanted): it rejects as a network error. */
  signal?: AbortSignal;
  /** This try's time limit, ms, when it should differ from the client's (a long-poll waits longer). */
  timeoutMs?: number;
}

/** A 2xx answer, parsed. */
export interface Answer<T> {
  status: number;
  body: T;
}

interface Problem {
  code?: unknown;
  detail?: unknown;
  title?: unknown;
  errors?: unknown;
}

/** A non-2xx answer as a ChipsError (problem+json when the server sent one). */
function fromAnswer(status: number, text: string, retryAfter: string | null): ChipsError {
  let p: Problem = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object") p = parsed as Problem;
  } catch {
    // not problem+json: described below
  }
  // By bytes, so a non-JSON answer's first words never end in half a character.
  const snippet = clipUtf8(text.replace(/\s+/g, " ").trim(), 200);
  return new ChipsError({
    code: typeof p.code === "string" ? p.code : `http_${status}`,
    status,
    detail:
      typeof p.detail === "string" ? p.detail : typeof p.title === "string" ? p.title : snippet || `HTTP ${status}`,
    errors: Array.isArray(p.errors) ? (p.errors as FieldError[]) : undefined,
    retryAfterMs: parseRetryAfter(retryAfter),
  });
}

function networkError(url: string, err: unknown): ChipsError {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
  return new ChipsError({ code: "network_error", status: 0, detail: `no answer from ${url} (${why})`, cause: err });
}

/**
 * HTTP to the Chips API with retries: a request that got no answer, a 5xx, a 429 or a 503
 * is sent again — the very same bytes — after a jittered exponential wait (added to the
 * server's `Retry-After` when it sent one), until it is answered, or the attempts or the
 * time budget run out.
 * Any other 4xx throws a ChipsError at once. Safe for event posts because the server
 * answers a replayed idempotency key with the event it stored the first time.
 */
export class Transport {
  private readonly fetchFn: typeof fetch;

  constructor(readonly opts: TransportOptions) {
    this.fetchFn = opts.fetch ?? ((...a) => fetch(...a));
  }

  /** Send `req` (retrying as above); answers the parsed 2xx body or throws a ChipsError. */
  async send<T>(req: Request): Promise<Answer<T>> {
    const policy = this.opts.retry;
    const attempts = req.retry === false ? 1 : policy.attempts;
    const deadline = Date.now() + policy.totalMs;
    for (let attempt = 0; ; attempt++) {
      let error: ChipsError;
      try {
        return await this.once<T>(req);
      } catch (e) {
        if (!(e instanceof ChipsError) || !isRetryableStatus(e.status)) throw e;
        error = e;
      }
      if (attempt + 1 >= attempts || req.signal?.aborted) throw error;
      // At least the server's Retry-After, plus the jitter, so waiting clients do not return in step.
      const wait = (error.retryAfterMs ?? 0) + backoffMs(attempt, policy);
      if (Date.now() + wait > deadline) throw error;
      await sleep(wait);
    }
  }

  /** One try. */
  private async once<T>(req: Request): Promise<Answer<T>> {
    const url = this.opts.url + req.path;
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.token}`, accept: "application/json" };
    if (req.body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    let text: string;
    try {
      res = await this.fetchFn(url, {
        method: req.method,
        headers,
        body: req.body,
        signal: ((t) => (req.signal ? AbortSignal.any([t, req.signal]) : t))(
          AbortSignal.timeout(req.timeoutMs ?? this.opts.requestTimeoutMs ?? 30_000),
        ),
      });
      text = await res.text();
    } catch (err) {
      throw networkError(this.opts.url, err);
    }
    if (!res.ok) throw fromAnswer(res.status, text, res.headers.get("retry-after"));
    try {
      return { status: res.status, body: JSON.parse(text) as T };
    } catch {
      throw new ChipsError({
        code: "bad_response",
        status: res.status,
        detail: `${req.method} ${req.path} did not answer JSON — is ${this.opts.url} a Chips server?`,
      });
    }
  }
}
