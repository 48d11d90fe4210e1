import type { z } from "zod";
import { IncomingEvent, isEventType, PROTOCOL_VERSION, requiredEnvelope } from "./events";
import { problem, type FieldError, type ProblemError } from "./errors";

export type ParseResult = { ok: true; event: IncomingEvent } | { ok: false; problem: ProblemError };

/** JSON pointer from a zod issue path, below `base` (e.g. `/events/3`). */
function pointer(base: string, path: readonly PropertyKey[]): string {
  return base + path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export function zodErrors(base: string, error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({ pointer: pointer(base, i.path), message: i.message }));
}

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Parse one event as sent ([ENV1], [ENV2], the catalogue's fields). `base` is the JSON
 * pointer of the event in the request body, so errors point into a batch.
 */
export function parseEvent(raw: unknown, base = ""): ParseResult {
  if (!isPlainObject(raw)) {
    return {
      ok: false,
      problem: problem("validation_failed", "an event must be a JSON object", [
        { pointer: base, message: "must be an object" },
      ]),
    };
  }
  if (typeof raw.v === "number" && raw.v !== PROTOCOL_VERSION) {
    return {
      ok: false,
      problem: problem(
        "unsupported_version",
        `protocol version ${raw.v} is not supported; this server speaks v${PROTOCOL_VERSION}`,
        [{ pointer: `${base}/v`, message: `must be ${PROTOCOL_VERSION}` }],
      ),
    };
  }
  if (typeof raw.type === "string" && !isEventType(raw.type)) {
    return {
      ok: false,
      problem: problem("unknown_type", `unknown event type ${JSON.stringify(raw.type.slice(0, 80))}`, [
        { pointer: `${base}/type`, message: "not in the v1 catalogue" },
      ]),
    };
  }
  const parsed = IncomingEvent.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      problem: problem("validation_failed", "the event does not match its schema", zodErrors(base, parsed.error)),
    };
  }
  const event = parsed.data;
  const missing: FieldError[] = requiredEnvelope(event.type)
    .filter((field) => !event[field])
    .map((field) => ({
      pointer: `${base}/${field}`,
      message: field === "idempotency_key" ? "required on every client write" : `required for ${event.type}`,
    }));
  if (missing.length)
    return { ok: false, problem: problem("validation_failed", "required fields are missing", missing) };
  return { ok: true, event };
}
