import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { Credential } from "../credentials";

/** What the API's middleware hands every handler: the caller's credential. */
export type ApiEnv = { Variables: { cred: Credential } };
import type { z } from "zod";
import {
  ERROR_STATUS,
  LIMITS,
  loneSurrogateAt,
  mayHoldLoneSurrogate,
  problem,
  problemBody,
  zodErrors,
  type ErrorCode,
  type ProblemError,
} from "@/lib/core/protocol";

/** An RFC 9457 problem+json response with the stable `code`. */
export function problemResponse(p: ProblemError): Response {
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (p.retryAfter !== undefined) headers["retry-after"] = String(p.retryAfter);
  return new Response(JSON.stringify(problemBody(p)), { status: ERROR_STATUS[p.code], headers });
}

export const fail = (code: ErrorCode, detail: string, pointer?: string) =>
  problemResponse(problem(code, detail, pointer !== undefined ? [{ pointer, message: detail }] : undefined));

export function bearer(c: Context): string | null {
  const h = c.req.header("authorization");
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; response: Response };

/**
 * Read a JSON body in the order of [HTTP2]: 415 for another media type, 413 past the size
 * limit (reading stops there), 400 for broken JSON or text that is not Unicode ([HTTP4]).
 */
export async function readJson(c: Context, maxBytes: number = LIMITS.bodyBytes): Promise<BodyResult> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    return { ok: false, response: fail("unsupported_media_type", "send the body as application/json") };
  }
  const bytes = await readBytes(c, maxBytes);
  if (!bytes.ok) return bytes;
  const text = bytes.value.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, response: fail("invalid_json", "the body is not valid JSON") };
  }
  // Half a surrogate pair is valid JSON but not Unicode text: refused here, at its field, not by the store.
  const lone = mayHoldLoneSurrogate(text) ? loneSurrogateAt(value) : null;
  if (lone !== null)
    return {
      ok: false,
      response: fail("invalid_json", "the body escapes half of a surrogate pair: text must be valid Unicode", lone),
    };
  return { ok: true, value };
}

/**
 * The one body parse of the API: read JSON as `readJson` does ([HTTP2]: 415, 413, 400), then
 * validate it with `schema`; a body that does not fit is `422 validation_failed` titled
 * "bad `what`" with a pointer to each field at fault. `nullAs` stands in for a JSON `null` body.
 */
export async function parseBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  what: string,
  maxBytes: number,
  nullAs?: unknown,
): Promise<{ data: z.output<S> } | Response> {
  const body = await readJson(c, maxBytes);
  if (!body.ok) return body.response;
  const input = schema.safeParse(body.value ?? nullAs ?? body.value);
  if (!input.success) return problemResponse(problem("validation_failed", what, zodErrors("", input.error)));
  return { data: input.data };
}

/** The raw body, refused with 413 as soon as it passes `maxBytes` (the rest is never read). */
export async function readBytes(
  c: Context,
  maxBytes: number,
): Promise<{ ok: true; value: Buffer } | { ok: false; response: Response }> {
  const declared = Number(c.req.header("content-length"));
  const tooLarge = () => {
    const response = fail("payload_too_large", `the body is over ${maxBytes} bytes`);
    // The rest of the body is not read: the connection cannot be reused for another request.
    response.headers.set("connection", "close");
    return { ok: false as const, response };
  };
  if (Number.isFinite(declared) && declared > maxBytes) return tooLarge();
  // Under @hono/node-server the body is read from Node's own request: touching c.req.raw
  // would build a web Request, a ReadableStream and an AbortSignal for every POST
  // (docs/PERFORMANCE.md). Elsewhere (app.request in tests), the web stream.
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const body = incoming ? await readIncoming(incoming, maxBytes) : await readStream(c.req.raw.body, maxBytes);
  return body ?? tooLarge();
}

/** Node's request body, or null once it passes `maxBytes` (reading stops there). */
function readIncoming(req: IncomingMessage, maxBytes: number): Promise<{ ok: true; value: Buffer } | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        // The rest is discarded, not kept unread: the 413 goes out with connection: close,
        // and a connection closed on unread data is reset before the client reads it.
        req.resume();
        return resolve(null);
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve({ ok: true, value: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size) });
    };
    const onError = (e: Error) => {
      done();
      reject(e);
    };
    const onClose = () => {
      if (req.complete) return;
      done();
      reject(new Error("the client closed the request before its body was complete"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

async function readStream(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ ok: true; value: Buffer } | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (stream) {
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  }
  return { ok: true, value: Buffer.concat(chunks) };
}

export function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

/** A non-negative integer query parameter, or an error response. */
export function intParam(
  raw: string | undefined,
  name: string,
  dflt: number,
  max = Number.MAX_SAFE_INTEGER,
): number | Response {
  if (raw === undefined || raw === "") return dflt;
  if (!/^\d+$/.test(raw)) return fail("validation_failed", `${name} must be a non-negative integer`, `/query/${name}`);
  const n = Number(raw);
  if (n > max) return fail("validation_failed", `${name} must be at most ${max}`, `/query/${name}`);
  return n;
}
