import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";

/**
 * The OpenTelemetry JS SDK as a real client of Chips' OTLP endpoint: a tracer provider with
 * the official OTLP exporter (http/protobuf or http/json), instrumenting a made-up agent the
 * way the GenAI semantic conventions say — `invoke_agent` around `chat` and `execute_tool`.
 */

export interface AgentTrace {
  traceId: string;
  /** The tool calls as the agent made them. */
  calls: { id: string; tool: string; command: string; failed: boolean }[];
}

export interface AgentScript {
  agent: string;
  resource?: Record<string, string>;
  calls: { id: string; tool: string; command: string; failed?: boolean }[];
  plan?: string[];
}

/** The agent's spans, made by a real tracer with explicit times and parents. */
function instrument(provider: BasicTracerProvider, o: AgentScript): string {
  const tracer = provider.getTracer("test-agent", "1.0.0");
  const start = Date.now() - 60_000;
  const root = tracer.startSpan(
    `invoke_agent ${o.agent}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: start,
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": o.agent,
        "gen_ai.agent.description": `Fix the build with ${o.agent}`,
        "gen_ai.provider.name": "anthropic",
      },
    },
    ROOT_CONTEXT,
  );
  const inRoot = trace.setSpan(context.active(), root);
  let t = start + 10;
  const child = (name: string, kind: SpanKind, attributes: Record<string, string | number | string[]>): Span =>
    tracer.startSpan(name, { kind, startTime: (t += 10), attributes }, inRoot);
  if (o.plan)
    child("plan", SpanKind.INTERNAL, { "gen_ai.operation.name": "plan", "chips.plan.steps": o.plan }).end((t += 5));
  for (const c of o.calls) {
    child("chat model-x", SpanKind.CLIENT, {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "model-x",
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 20,
    }).end((t += 100));
    const tool = child(`execute_tool ${c.tool}`, SpanKind.INTERNAL, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": c.tool,
      "gen_ai.tool.call.id": c.id,
      "gen_ai.tool.type": "function",
      "gen_ai.tool.call.arguments": JSON.stringify({ command: c.command }),
    });
    if (c.failed) {
      tool.setStatus({ code: SpanStatusCode.ERROR, message: "exit status 1" });
      tool.setAttribute("error.type", "tool_error");
    }
    tool.end((t += 250));
  }
  root.end((t += 10));
  return root.spanContext().traceId;
}

const resourceOf = (o: AgentScript) => resourceFromAttributes({ "service.name": `${o.agent}-service`, ...o.resource });

/** The spans alone (an in-memory exporter), to serialize with the SDK's own serializers. */
export async function recordAgentSpans(o: AgentScript): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceOf(o),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  instrument(provider, o);
  await provider.forceFlush();
  return memory.getFinishedSpans();
}

/** The agent run with the SDK's OTLP exporter sending its spans to Chips. */
export async function runInstrumentedAgent(
  o: AgentScript & { url: string; token: string; protocol: "http/protobuf" | "http/json" },
): Promise<AgentTrace> {
  const options = { url: `${o.url}/v1/traces`, headers: { authorization: `Bearer ${o.token}` } };
  const exporter = o.protocol === "http/protobuf" ? new ProtoExporter(options) : new JsonExporter(options);
  // The exporter's answers, so a refused export fails the test (the processor only logs them).
  const results: ExportResult[] = [];
  const watched: SpanExporter = {
    export: (spans, done) => exporter.export(spans, (r) => (results.push(r), done(r))),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  const provider = new BasicTracerProvider({
    resource: resourceOf(o),
    spanProcessors: [new BatchSpanProcessor(watched)],
  });
  const traceId = instrument(provider, o);
  await provider.forceFlush();
  await provider.shutdown();
  const failed = results.find((r) => r.code !== ExportResultCode.SUCCESS);
  if (failed || !results.length) throw new Error(`the export failed: ${failed?.error?.message ?? "nothing sent"}`);
  return { traceId, calls: o.calls.map((c) => ({ ...c, failed: !!c.failed })) };
}
