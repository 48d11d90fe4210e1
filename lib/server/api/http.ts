import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { Credential } from "../credentials";

/** What the API's middleware hands every handler: the caller's credential. */
export type ApiEnv = { Variables: { cred: Credential } };
import {
  ERROR_STATUS,
  LIMITS,
  mayHoldUnstorableText,
  unstorableTextAt,
  problem,
  problemAt,
  problemBody,
  type ErrorCode,
  type ProblemError,
} from "@/lib/core/protocol";

/** An RFC 9457 problem+json response with the stable `code`. */
export function problemResponse(p: ProblemError): Response {
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (p.retryAfter !== undefined) headers["retry-after"] = String(p.retryAfter);
  if (p.unread) headers.connection = "close";
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

export type BodyResult = { ok: true; value: unknown } | { ok: false; problem: ProblemError };

/**
 * Read a JSON body in the order of [HTTP2]: 415 for another media type, 413 past the size
 * limit (reading stops there), 400 for broken JSON or text the store cannot hold ([HTTP4]).
 */
export async function readJson(c: Context, maxBytes: number = LIMITS.bodyBytes): Promise<BodyResult> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    return { ok: false, problem: problem("unsupported_media_type", "send the body as application/json") };
  }
  const bytes = await readBytes(c, maxBytes);
  if (!bytes.ok) return bytes;
  const text = bytes.value.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: problem("invalid_json", "the body is not valid JSON") };
  }
  // Half a surrogate pair, or U+0000, is valid JSON but not text the store holds: refused here, at its field.
  const bad = mayHoldUnstorableText(text) ? unstorableTextAt(value) : null;
  if (bad !== null) return { ok: false, problem: problemAt("invalid_json", `the body's text ${bad.why}`, bad.pointer) };
  return { ok: true, value };
}

/** The raw body, refused with 413 as soon as it passes `maxBytes` (the rest is never read). */
export async function readBytes(
  c: Context,
  maxBytes: number,
): Promise<{ ok: true; value: Buffer } | { ok: false; problem: ProblemError }> {
  const declared = Number(c.req.header("content-length"));
  // The rest of the body is not read: the connection cannot be reused for another request.
  const tooLarge = () => ({
    ok: false as const,
    problem: { ...problem("payload_too_large", `the body is over ${maxBytes} bytes`), unread: true as const },
  });
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
