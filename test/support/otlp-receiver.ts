import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

/**
 * A local OTLP/HTTP receiver for export tests: it keeps each request and decodes trace bodies
 * with protobufjs straight from the OpenTelemetry project's .proto files (the ones vendored in
 * lib/server/otel/proto) — not through Chips' own decoder, which is under test elsewhere.
 */
const root = new protobuf.Root();
root.resolvePath = (_o, target) => path.resolve(import.meta.dirname, "../../lib/server/otel/proto", target);
root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
const Request = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  start: number;
  end: number;
  status: { code: number; message: string };
  attrs: Record<string, unknown>;
  events: { name: string; attrs: Record<string, unknown> }[];
  resource: Record<string, unknown>;
}

const value = (v: any): unknown =>
  v == null
    ? undefined
    : "stringValue" in v
      ? v.stringValue
      : "intValue" in v
        ? Number(v.intValue)
        : "doubleValue" in v
          ? v.doubleValue
          : "boolValue" in v
            ? v.boolValue
            : "arrayValue" in v
              ? (v.arrayValue.values ?? []).map(value)
              : undefined;
const attrs = (kvs: any[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, value(kv.value)]));
const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString("hex");

export function decodeSpans(body: Buffer): ReceivedSpan[] {
  const req: any = Request.toObject(Request.decode(body), { longs: String, enums: Number, arrays: true });
  const out: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const s of ss.spans)
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: s.kind,
          start: Number(BigInt(s.startTimeUnixNano) / 1_000_000n),
          end: Number(BigInt(s.endTimeUnixNano) / 1_000_000n),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
          attrs: attrs(s.attributes),
          events: s.events.map((e: any) => ({ name: e.name, attrs: attrs(e.attributes) })),
          resource: attrs(rs.resource?.attributes),
        });
  return out;
}

export interface Receiver {
  url: string;
  requests: { path: string; type: string; headers: http.IncomingHttpHeaders; body: Buffer }[];
  /** The status to answer with next (200 by default). */
  answer: number[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: Receiver["requests"] = [];
  const answer: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const status = answer.shift() ?? 200;
      if (status === 200)
        requests.push({
          path: req.url ?? "",
          type: String(req.headers["content-type"]),
          headers: req.headers,
          body: Buffer.concat(chunks),
        });
      res.writeHead(status, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
