import { SpanKind, TraceFlags } from "@opentelemetry/api";
import { millisToHrTime } from "@opentelemetry/core";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { Db } from "@/db/client";
import { getRun } from "@/lib/server/queries/runs";
import { namesOf, runEventBodies } from "@/lib/server/queries/review";
import { ATTR_SERVICE_NAME, CHIPS } from "./semconv";
import { runSpans, type SpanPlan } from "./spans";
import type { Encoding } from "./decode";

/**
 * Runs as an OTLP/HTTP traces request ([OTL7]), built by the OpenTelemetry JS SDK's own
 * serializer (`@opentelemetry/otlp-transformer`) from spans made by hand — their times are the
 * run's, their ids drawn from it (lib/server/otel/spans.ts), no tracer involved.
 */

type ReadableSpan = Parameters<typeof ProtobufTraceSerializer.serializeRequest>[0][number];

const SCOPE = { name: "chips", version: "1" };

function readable(p: SpanPlan, resource: ReturnType<typeof resourceFromAttributes>): ReadableSpan {
  const ctx = (spanId: string) => ({ traceId: p.traceId, spanId, traceFlags: TraceFlags.SAMPLED });
  return {
    name: p.name,
    kind: SpanKind.INTERNAL,
    spanContext: () => ctx(p.spanId),
    parentSpanContext: p.parentSpanId ? ctx(p.parentSpanId) : undefined,
    startTime: millisToHrTime(p.startMs),
    endTime: millisToHrTime(p.endMs),
    duration: millisToHrTime(Math.max(0, p.endMs - p.startMs)),
    status: p.status,
    attributes: p.attrs,
    links: [],
    events: p.events.map((e) => ({ name: e.name, time: millisToHrTime(e.timeMs), attributes: e.attrs })),
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** Spans as the request's bytes, in either OTLP encoding. */
export function serializeSpans(plans: SpanPlan[], encoding: Encoding, workspaceId: string): Uint8Array {
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: "chips", [CHIPS.workspaceId]: workspaceId });
  const spans = plans.map((p) => readable(p, resource));
  const bytes = (encoding === "json" ? JsonTraceSerializer : ProtobufTraceSerializer).serializeRequest(spans);
  if (!bytes) throw new Error("the OTLP serializer produced nothing");
  return bytes;
}

/** These runs of the workspace as GenAI spans (a run of another workspace is left out). */
export async function runsAsSpans(db: Db, ws: string, runIds: string[]): Promise<SpanPlan[]> {
  const names = await namesOf(db, ws);
  const harness = new Map(names.harnesses.map((h) => [h.id, h.name]));
  const plans: SpanPlan[] = [];
  for (const id of runIds) {
    const run = await getRun(db, id);
    if (!run || run.workspace_id !== ws) continue;
    const events = (await runEventBodies(db, id)).map((b) => JSON.parse(b));
    const agent = run.request?.agent ?? (run.harness_id ? harness.get(run.harness_id) : undefined) ?? "agent";
    plans.push(...runSpans(run, events, agent));
  }
  return plans;
}
