/**
 * A decoded OTLP request (the OTLP/JSON shape, lib/server/otel/decode.ts) flattened into the
 * records the mapping reads: one per span and one per log record, each with its resource's
 * attributes beside its own, every AnyValue a plain value. Tolerant of what real producers
 * send (measured: Claude Code 2.1.141, Codex 0.169, the OTel JS SDK): `intValue` as a number
 * or a string, `body: null`, `timeUnixNano: "0"`, absent defaults. Nothing here throws on a
 * body of the wrong shape: a part that is not what OTLP says is skipped and counted as refused.
 */

export type Attrs = Record<string, unknown>;

interface SpanEventRecord {
  name: string;
  timeMs: number;
  attrs: Attrs;
}

export interface SpanRecord {
  resource: Attrs;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  /** OTLP status: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  attrs: Attrs;
  events: SpanEventRecord[];
}

export interface LogRecord {
  resource: Attrs;
  scope: string;
  /** The record's time, else the time it was observed (Codex sends 0), ms. */
  timeMs: number;
  /** Nanoseconds as sent (a tiebreak with more precision than the ms). */
  timeNs: string;
  body: unknown;
  attrs: Attrs;
  traceId: string;
  spanId: string;
}

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** An AnyValue (either encoding) as a plain value; a 64-bit integer past 2^53 stays a string. */
function anyValue(v: unknown): unknown {
  const o = obj(v);
  if ("stringValue" in o) return str(o.stringValue);
  if ("boolValue" in o) return o.boolValue === true;
  if ("intValue" in o) {
    const n = Number(o.intValue);
    return Number.isSafeInteger(n) ? n : str(o.intValue);
  }
  if ("doubleValue" in o) return Number(o.doubleValue);
  if ("bytesValue" in o) return str(o.bytesValue);
  if ("arrayValue" in o) return arr(obj(o.arrayValue).values).map(anyValue);
  if ("kvlistValue" in o) return attrsOf(obj(o.kvlistValue).values);
  return undefined;
}

function attrsOf(kvs: unknown): Attrs {
  const out: Attrs = {};
  for (const kv of arr(kvs)) {
    const k = obj(kv).key;
    if (typeof k === "string" && k !== "__proto__") out[k] = anyValue(obj(kv).value);
  }
  return out;
}

/** Unix nanoseconds (a decimal string or a number) as ms; 0 for none. */
function nsToMs(v: unknown): number {
  const s = str(v);
  if (!/^\d{1,20}$/.test(s)) return 0;
  return s.length > 6 ? Number(s.slice(0, -6)) : 0;
}

const HEX = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`);
const TRACE_ID = HEX(32);
const SPAN_ID = HEX(16);
const ZERO = /^0+$/;

/** The spans of a traces request; `refused` counts those without valid ids (OTLP requires them). */
export function spanRecords(body: Record<string, unknown>): { spans: SpanRecord[]; refused: number } {
  const spans: SpanRecord[] = [];
  let refused = 0;
  for (const rs of arr(body.resourceSpans)) {
    const resource = attrsOf(obj(obj(rs).resource).attributes);
    for (const ss of arr(obj(rs).scopeSpans)) {
      const scope = str(obj(obj(ss).scope).name);
      for (const raw of arr(obj(ss).spans)) {
        const s = obj(raw);
        const traceId = str(s.traceId).toLowerCase();
        const spanId = str(s.spanId).toLowerCase();
        const parent = str(s.parentSpanId).toLowerCase();
        if (!TRACE_ID.test(traceId) || ZERO.test(traceId) || !SPAN_ID.test(spanId) || ZERO.test(spanId)) {
          refused++;
          continue;
        }
        const status = obj(s.status);
        spans.push({
          resource,
          scope,
          traceId,
          spanId,
          parentSpanId: SPAN_ID.test(parent) && !ZERO.test(parent) ? parent : "",
          name: str(s.name),
          kind: Number(s.kind) || 0,
          startMs: nsToMs(s.startTimeUnixNano),
          endMs: nsToMs(s.endTimeUnixNano),
          status: { code: Number(status.code) || 0, message: str(status.message) },
          attrs: attrsOf(s.attributes),
          events: arr(s.events).map((e) => ({
            name: str(obj(e).name),
            timeMs: nsToMs(obj(e).timeUnixNano),
            attrs: attrsOf(obj(e).attributes),
          })),
        });
      }
    }
  }
  return { spans, refused };
}

/** The log records of a logs request. */
export function logRecords(body: Record<string, unknown>): LogRecord[] {
  const out: LogRecord[] = [];
  for (const rl of arr(body.resourceLogs)) {
    const resource = attrsOf(obj(obj(rl).resource).attributes);
    for (const sl of arr(obj(rl).scopeLogs)) {
      const scope = str(obj(obj(sl).scope).name);
      for (const raw of arr(obj(sl).logRecords)) {
        const r = obj(raw);
        const time = nsToMs(r.timeUnixNano) ? r.timeUnixNano : r.observedTimeUnixNano;
        out.push({
          resource,
          scope,
          timeMs: nsToMs(time),
          timeNs: str(time) || "0",
          body: r.body === null || r.body === undefined ? undefined : anyValue(r.body),
          attrs: attrsOf(r.attributes),
          traceId: str(r.traceId).toLowerCase(),
          spanId: str(r.spanId).toLowerCase(),
        });
      }
    }
  }
  return out;
}
