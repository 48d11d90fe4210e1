import { createHash } from "node:crypto";
import type { Run } from "@/lib/core/protocol";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  CHIPS,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_PLAN,
} from "./semconv";

/**
 * A run as GenAI spans ([OTL7], docs/OTEL.md): `invoke_agent {agent}` for the run, an
 * `execute_tool {tool}` child per tool call, a `plan {agent}` child with the steps, the usage
 * on the root, and people's commands, their receipts and the run's asks as span events
 * (`chips.command`, `chips.receipt`, `chips.ask`) with `chips.*` attributes. Ids are drawn
 * from the run and item ids, so exporting a run again sends the same spans.
 */

type Attr = string | number | boolean | string[];

export interface SpanPlan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's numbering: 1 internal. Every span here is INTERNAL: the agent ran under Chips, in-process to it. */
  startMs: number;
  endMs: number;
  attrs: Record<string, Attr>;
  events: { name: string; timeMs: number; attrs: Record<string, Attr> }[];
  status: { code: 0 | 1 | 2; message?: string };
}

const hex = (s: string, n: number) => {
  const h = createHash("sha256").update(s).digest("hex").slice(0, n);
  return /^0+$/.test(h) ? "1".padStart(n, "0") : h; // an all-zero id is invalid
};
const traceIdOf = (runId: string) => hex(`chips:run:${runId}`, 32);
const spanIdOf = (runId: string, item: string) => hex(`${runId}:${item}`, 16);

type Ev = Record<string, unknown> & { type: string; ts: string; seq: number };
const str = (v: unknown) => (typeof v === "string" ? v : "");
const ms = (iso: unknown) => (typeof iso === "string" ? Date.parse(iso) : NaN);

/** The spans of one run, from its read model and its stored events (seq order). */
export function runSpans(run: Run, events: Ev[], agent: string): SpanPlan[] {
  const traceId = traceIdOf(run.id);
  const root = spanIdOf(run.id, "run");
  const start = ms(run.started_at ?? run.created_at);
  const end = Math.max(start, ms(run.finished_at ?? run.updated_at));
  const usage = run.usage;
  const rootSpan: SpanPlan = {
    traceId,
    spanId: root,
    name: `invoke_agent ${agent}`,
    startMs: start,
    endMs: end,
    attrs: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [ATTR_GEN_AI_AGENT_NAME]: agent,
      ...(run.harness_id ? { [ATTR_GEN_AI_AGENT_ID]: run.harness_id } : {}),
      ...(run.session_ref ? { [ATTR_GEN_AI_CONVERSATION_ID]: run.session_ref } : {}),
      [CHIPS.runId]: run.id,
      [CHIPS.spaceId]: run.space_id,
      [CHIPS.workspaceId]: run.workspace_id,
      [CHIPS.goal]: run.goal,
      ...(run.outcome ? { [CHIPS.outcome]: run.outcome } : {}),
      ...(usage
        ? {
            [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.input_tokens,
            [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.output_tokens,
            ...(usage.cached_input_tokens !== undefined
              ? { [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cached_input_tokens }
              : {}),
            ...(usage.cost_usd !== undefined ? { [CHIPS.cost]: usage.cost_usd } : {}),
          }
        : {}),
      ...(run.outcome === "failed" ? { [ATTR_ERROR_TYPE]: "run_failed" } : {}),
    },
    events: [],
    status: run.outcome === "failed" ? { code: 2, message: run.summary ?? "the run failed" } : { code: 0 },
  };
  const spans: SpanPlan[] = [rootSpan];
  const calls = new Map<string, { start?: Ev; end?: Ev }>();
  let planAt: number | null = null;
  for (const e of events) {
    if (e.type === "tool.started" || e.type === "tool.finished") {
      const id = str(e.call_id);
      const c = calls.get(id) ?? calls.set(id, {}).get(id)!;
      if (e.type === "tool.started") c.start = e;
      else c.end = e;
    } else if (e.type === "run.step") planAt ??= ms(e.ts);
    else if (e.type === "run.command")
      rootSpan.events.push(
        spanEvent("chips.command", e, {
          "chips.command.id": str(e.command_id),
          "chips.command.name": str(e.command),
          ...(e.text ? { "chips.command.text": str(e.text) } : {}),
        }),
      );
    else if (e.type === "run.command_delivered")
      rootSpan.events.push(
        spanEvent("chips.receipt", e, { "chips.command.id": str(e.command_id), "chips.receipt.state": "delivered" }),
      );
    else if (e.type === "run.command_acked")
      rootSpan.events.push(
        spanEvent("chips.receipt", e, {
          "chips.command.id": str(e.command_id),
          "chips.receipt.state": str(e.result),
          ...(e.reason ? { "chips.receipt.reason": str(e.reason) } : {}),
        }),
      );
    else if (/^run\.(ask|answer)/.test(e.type))
      rootSpan.events.push(
        spanEvent("chips.ask", e, {
          "chips.ask.id": str(e.ask_id),
          "chips.ask.event": e.type,
          ...Object.fromEntries(
            ["kind", "tool", "summary", "question", "decision", "option_id", "result", "reason", "text"]
              .filter((k) => typeof e[k] === "string")
              .map((k) => [`chips.ask.${k}`, str(e[k])]),
          ),
        }),
      );
  }
  if (run.plan.length)
    spans.push({
      traceId,
      spanId: spanIdOf(run.id, "plan"),
      parentSpanId: root,
      name: `plan ${agent}`,
      startMs: Math.max(start, planAt ?? start),
      endMs: Math.max(
        start,
        ...run.plan.map((s) => ms(s.finished_at ?? s.started_at ?? run.started_at ?? run.created_at)),
      ),
      attrs: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_PLAN,
        [CHIPS.planSteps]: run.plan.map((s) => s.title),
        [CHIPS.planStates]: run.plan.map((s) => s.state),
      },
      events: [],
      status: { code: 0 },
    });
  for (const [callId, c] of calls) spans.push(toolSpan(run.id, traceId, root, callId, c, end));
  return spans;
}

function spanEvent(name: string, e: Ev, attrs: Record<string, Attr>) {
  const actor = e.actor as { kind?: string; id?: string } | undefined;
  return {
    name,
    timeMs: ms(e.ts),
    attrs: {
      ...attrs,
      "chips.actor.kind": str(actor?.kind),
      "chips.actor.id": str(actor?.id),
      "chips.event.id": str(e.id),
    },
  };
}

function toolSpan(
  runId: string,
  traceId: string,
  parent: string,
  callId: string,
  c: { start?: Ev; end?: Ev },
  runEnd: number,
): SpanPlan {
  const said = c.start ?? c.end!;
  const tool = str(said.tool) || str(c.end?.tool) || "tool";
  const duration = typeof c.end?.duration_ms === "number" ? c.end.duration_ms : undefined;
  const endAt = c.end ? ms(c.end.ts) : runEnd;
  const startAt = ms(said.started_at) || (c.start ? ms(c.start.ts) : duration !== undefined ? endAt - duration : endAt);
  const outcome = str(c.end?.outcome);
  const failed = outcome === "failed";
  const input = str(said.input) || str(c.end?.input);
  return {
    traceId,
    spanId: spanIdOf(runId, `call:${callId}`),
    parentSpanId: parent,
    name: `execute_tool ${tool}`,
    startMs: startAt,
    endMs: duration !== undefined ? startAt + duration : Math.max(startAt, endAt),
    attrs: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: tool,
      [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
      [ATTR_GEN_AI_TOOL_TYPE]: "function",
      [CHIPS.summary]: str(said.summary) || str(c.end?.summary),
      ...(input ? { [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: input } : {}),
      ...(outcome ? { [CHIPS.outcomeOfCall]: outcome } : {}),
      ...(typeof c.end?.exit_code === "number" ? { [CHIPS.exitCode]: c.end.exit_code } : {}),
      ...(c.end?.output ? { [ATTR_GEN_AI_TOOL_CALL_RESULT]: str(c.end.output) } : {}),
      ...(failed ? { [ATTR_ERROR_TYPE]: "tool_error" } : {}),
    },
    events: [],
    status: failed ? { code: 2, message: str(c.end?.error) || "the call failed" } : { code: 0 },
  };
}
