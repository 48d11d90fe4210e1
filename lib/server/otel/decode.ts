import path from "node:path";
import zlib from "node:zlib";
import protobuf from "protobufjs";
import { problem, type ProblemError } from "@/lib/core/protocol";

/**
 * OTLP/HTTP bodies in both encodings, decoded into one shape: the OTLP/JSON one (lowerCamelCase
 * fields, ids as lowercase hex, 64-bit integers as decimal strings, enums as numbers). The
 * protobuf side is `protobufjs` over the OpenTelemetry project's own `.proto` files, vendored
 * in ./proto (v1.11.0; its README says why they are not an npm package).
 */

export type Signal = "traces" | "logs" | "metrics";
export type Encoding = "json" | "protobuf";

/** The encoding a Content-Type names, or null for one OTLP/HTTP does not define (415). */
function encodingOf(contentType: string | undefined): Encoding | null {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/json") return "json";
  return type === "application/x-protobuf" || type === "application/protobuf" ? "protobuf" : null;
}

const PROTO_DIR = path.join(import.meta.dirname, "proto");
const SERVICES: Record<Signal, { file: string; pkg: string; request: string; response: string }> = {
  traces: {
    file: "trace",
    pkg: "trace",
    request: "ExportTraceServiceRequest",
    response: "ExportTraceServiceResponse",
  },
  logs: { file: "logs", pkg: "logs", request: "ExportLogsServiceRequest", response: "ExportLogsServiceResponse" },
  metrics: {
    file: "metrics",
    pkg: "metrics",
    request: "ExportMetricsServiceRequest",
    response: "ExportMetricsServiceResponse",
  },
};

let types: Record<Signal, { request: protobuf.Type; response: protobuf.Type }> | null = null;

/** The request and response types of each signal, loaded once from the vendored files. */
function otlpTypes() {
  if (types) return types;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync(
    Object.values(SERVICES).map((s) => `opentelemetry/proto/collector/${s.file}/v1/${s.file}_service.proto`),
    { keepCase: false },
  );
  const of = (s: Signal) => {
    const ns = `opentelemetry.proto.collector.${SERVICES[s].pkg}.v1`;
    return {
      request: root.lookupType(`${ns}.${SERVICES[s].request}`),
      response: root.lookupType(`${ns}.${SERVICES[s].response}`),
    };
  };
  types = { traces: of("traces"), logs: of("logs"), metrics: of("metrics") };
  return types;
}

const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);

/** protobufjs renders bytes as base64; OTLP/JSON (what every exporter sends) has ids in hex. */
function idsToHex(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(idsToHex);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      o[k] = ID_FIELDS.has(k) && typeof x === "string" ? Buffer.from(x, "base64").toString("hex") : idsToHex(x);
    }
  }
  return v;
}

export type Decoded =
  { ok: true; encoding: Encoding; body: Record<string, unknown> } | { ok: false; problem: ProblemError };

const bad = (detail: string): Decoded => ({ ok: false, problem: problem("bad_request", detail) });

/**
 * The request's content type and encoding checked ([OTL2]: 415 for a type OTLP/HTTP does not
 * define, 413 past `maxBytes` after gzip too, 400 for a body that does not decode), then the body
 * as an OTLP/JSON object.
 */
export function decodeOtlp(
  signal: Signal,
  contentType: string | undefined,
  contentEncoding: string | undefined,
  raw: Buffer,
  maxBytes: number,
): Decoded {
  const encoding = encodingOf(contentType);
  if (!encoding)
    return {
      ok: false,
      problem: problem("unsupported_media_type", "send OTLP as application/x-protobuf or application/json"),
    };
  let bytes = raw;
  const enc = (contentEncoding ?? "identity").trim().toLowerCase();
  if (enc === "gzip") {
    try {
      bytes = zlib.gunzipSync(raw, { maxOutputLength: maxBytes });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
        return { ok: false, problem: problem("payload_too_large", `the body is over ${maxBytes} bytes uncompressed`) };
      return bad("the body is not valid gzip");
    }
  } else if (enc !== "identity" && enc !== "")
    return {
      ok: false,
      problem: problem("unsupported_media_type", `content-encoding ${enc} is not supported: send gzip or none`),
    };
  if (encoding === "json") {
    let v: unknown;
    try {
      v = JSON.parse(bytes.toString("utf8"));
    } catch {
      return bad("the body is not valid JSON");
    }
    if (!v || typeof v !== "object" || Array.isArray(v)) return bad("an OTLP/JSON body is an object");
    return { ok: true, encoding, body: v as Record<string, unknown> };
  }
  const T = otlpTypes()[signal].request;
  try {
    const msg = T.decode(bytes);
    const obj = T.toObject(msg, { longs: String, enums: Number, bytes: String, defaults: false, arrays: true });
    return { ok: true, encoding, body: idsToHex(obj) as Record<string, unknown> };
  } catch (e) {
    return bad(`the body is not an OTLP ${SERVICES[signal].request}: ${(e as Error).message}`);
  }
}

/** What was refused of a request: OTLP's partial success (its field names per signal). */
export interface Refused {
  count: number;
  message: string;
}

const REJECTED: Record<Signal, string> = {
  traces: "rejectedSpans",
  logs: "rejectedLogRecords",
  metrics: "rejectedDataPoints",
};

/**
 * The `Export*ServiceResponse` in the request's own encoding: empty when all was accepted,
 * else its partial success — how many items were refused and why ([OTL2]).
 */
export function encodeResponse(
  signal: Signal,
  encoding: Encoding,
  refused: Refused | null,
): { body: Uint8Array | string; type: string } {
  const partial =
    refused && refused.count > 0 ? { [REJECTED[signal]]: refused.count, errorMessage: refused.message } : null;
  if (encoding === "json")
    return {
      body: JSON.stringify(
        partial ? { partialSuccess: { ...partial, [REJECTED[signal]]: String(refused!.count) } } : {},
      ),
      type: "application/json",
    };
  const T = otlpTypes()[signal].response;
  return {
    body: T.encode(T.fromObject(partial ? { partialSuccess: partial } : {})).finish(),
    type: "application/x-protobuf",
  };
}
