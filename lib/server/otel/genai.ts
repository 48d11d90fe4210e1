import { TOOL_LIMITS, type Usage } from "@/lib/core/protocol";
import { callText, clean, count, goalOf, iso, jsonObject, num, tail, type Fact } from "./facts";
import type { SpanRecord } from "./records";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_DESCRIPTION,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_SERVICE_NAME,
  CHIPS,
} from "./semconv";
import { sessionOf } from "./sessions-of";

/**
 * GenAI spans ([OTL6]; the OpenTelemetry GenAI semantic conventions): a trace is one run;
 * `execute_tool` spans are its calls, `chat` (and the other inference operations) its usage,
 * `plan` its plan, and the root `invoke_agent` — the one without a parent — its end. Spans
 * from Claude Code and Codex are left to their logs (their spans carry no call ids).
 */

const str = (v: unknown) => (typeof v === "string" ? v : "");
const INFERENCE = new Set(["chat", "generate_content", "text_completion"]);
const OWN_LOGS = /^(com\.anthropic\.claude_code|codex)/;

/** The GenAI operation of a span: its attribute, else the first word of its name. */
function operationOf(s: SpanRecord): string {
  return str(s.attrs[ATTR_GEN_AI_OPERATION_NAME]) || s.name.split(" ")[0];
}

export function genAiFacts(s: SpanRecord): Fact | null {
  const service = str(s.resource[ATTR_SERVICE_NAME]);
  if (OWN_LOGS.test(s.scope) || service === "claude-code" || service.startsWith("codex")) return null;
  const op = operationOf(s);
  const agent = str(s.attrs[ATTR_GEN_AI_AGENT_NAME]) || service || "Agent";
  const conversation = str(s.attrs[ATTR_GEN_AI_CONVERSATION_ID]);
  const session = sessionOf(s.resource, `trace:${s.traceId}`, agent, conversation || undefined, false);
  const base = { session, key: `otel:span:${s.traceId}:${s.spanId}`, at: s.endMs, tie: s.startMs };
  const failed = s.status.code === 2;
  switch (true) {
    case op === "execute_tool":
      return toolCall(base, s, failed);
    case INFERENCE.has(op): {
      const usage = usageOf(s);
      return usage ? { ...base, t: "usage", usage } : null;
    }
    case op === "plan":
      return planOf(base, s);
    case op === "invoke_agent": {
      const goal =
        str(s.attrs[CHIPS.goal]) ||
        str(s.attrs[ATTR_GEN_AI_AGENT_DESCRIPTION]) ||
        `${agent} (trace ${s.traceId.slice(0, 8)})`;
      if (s.parentSpanId) return null; // a sub-agent: its calls are the run's
      const usage = usageOf(s);
      const told = str(s.attrs[CHIPS.outcome]);
      const outcome =
        told === "cancelled" || told === "failed" || told === "succeeded" ? told : failed ? "failed" : "succeeded";
      return {
        ...base,
        goal: goalOf(goal),
        t: "end",
        outcome,
        ...(s.status.message ? { summary: clean(s.status.message, 16_384) } : {}),
        ...(usage ? { usage } : {}),
      };
    }
    default:
      return null;
  }
}

function toolCall(base: Omit<Fact, "t">, s: SpanRecord, failed: boolean): Fact {
  const tool = str(s.attrs[ATTR_GEN_AI_TOOL_NAME]) || s.name.replace(/^execute_tool\s*/, "") || "tool";
  const rawArgs = s.attrs[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS];
  const args = jsonObject(rawArgs);
  const text = Object.keys(args).length
    ? callText(tool, args)
    : {
        summary: clean(tool, TOOL_LIMITS.summary),
        ...(str(rawArgs) ? { input: clean(str(rawArgs), TOOL_LIMITS.input) } : {}),
      };
  const told = str(s.attrs[CHIPS.outcomeOfCall]);
  const result = s.attrs[ATTR_GEN_AI_TOOL_CALL_RESULT];
  const output = typeof result === "string" ? result : result === undefined ? "" : JSON.stringify(result);
  const exit = num(s.attrs[CHIPS.exitCode]);
  const error = [str(s.attrs[ATTR_ERROR_TYPE]), s.status.message].filter(Boolean).join(": ");
  return {
    ...base,
    t: "call.end",
    callId: clean(str(s.attrs[ATTR_GEN_AI_TOOL_CALL_ID]) || s.spanId, TOOL_LIMITS.callId),
    tool: clean(tool, TOOL_LIMITS.tool),
    ...text,
    ...(str(s.attrs[CHIPS.summary])
      ? { summary: clean(str(s.attrs[CHIPS.summary]).replace(/\s+/g, " "), TOOL_LIMITS.summary) }
      : {}),
    outcome:
      told === "denied" || told === "cancelled" || told === "ok" || told === "failed" ? told : failed ? "failed" : "ok",
    startedAt: iso(s.startMs),
    durationMs: Math.max(0, s.endMs - s.startMs),
    ...(exit !== undefined && Number.isInteger(exit) && Math.abs(exit) < 2 ** 31 ? { exitCode: exit } : {}),
    ...(output ? { output: tail(output, TOOL_LIMITS.output), outputBytes: Buffer.byteLength(output) } : {}),
    ...(failed && error ? { error: clean(error, TOOL_LIMITS.error) } : {}),
  };
}

/** `gen_ai.usage.*` of a span, or null when it says none. */
function usageOf(s: SpanRecord): Usage | null {
  const input = count(s.attrs[ATTR_GEN_AI_USAGE_INPUT_TOKENS]);
  const output = count(s.attrs[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]);
  if (input === undefined && output === undefined) return null;
  const cached = count(s.attrs[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]);
  const cost = num(s.attrs[CHIPS.cost]);
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
    ...(cost !== undefined && cost >= 0 ? { cost_usd: cost } : {}),
  };
}

/** A `plan` span's steps: `chips.plan.steps` (titles) and `chips.plan.states`, as Chips exports them. */
function planOf(base: Omit<Fact, "t">, s: SpanRecord): Fact | null {
  const steps = Array.isArray(s.attrs[CHIPS.planSteps]) ? (s.attrs[CHIPS.planSteps] as unknown[]).map(str) : [];
  const states = Array.isArray(s.attrs[CHIPS.planStates]) ? (s.attrs[CHIPS.planStates] as unknown[]).map(str) : [];
  if (!steps.length) return null;
  return {
    ...base,
    at: s.startMs,
    t: "plan",
    steps: steps.map((title, i) => ({
      title,
      state: states[i] === "done" || states[i] === "active" ? states[i] : "pending",
    })),
  };
}
