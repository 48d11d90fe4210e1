import { TOOL_LIMITS } from "@/lib/core/protocol";
import { callText, clean, count, goalOf, iso, jsonObject, num, type Fact, type Session } from "./facts";
import type { LogRecord } from "./records";
import { recordHash, sessionOf } from "./sessions-of";

/**
 * Claude Code's own log events ([OTL5]; measured with 2.1.141, docs/OTEL.md): `user_prompt`,
 * `api_request` (usage), `tool_decision` and `tool_result` joined on `tool_use_id`. Its spans
 * carry no tool_use_id, so calls come from the logs only. Every record of a session carries
 * `session.id`, `prompt.id` and `event.sequence` (0, 1, 2… per process): its key.
 */

/** A Claude Code record: its resource says so, or its scope or body does. */
export function isClaude(r: LogRecord): boolean {
  return (
    r.resource["service.name"] === "claude-code" ||
    r.scope.startsWith("com.anthropic.claude_code") ||
    (typeof r.body === "string" && r.body.startsWith("claude_code."))
  );
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const PLAN_TOOLS = new Set(["TodoWrite"]);
const REDACTED = /^<REDACTED>$|^\[REDACTED\]$/;

export function claudeFacts(r: LogRecord): Fact[] {
  const sid = str(r.attrs["session.id"]);
  const name = str(r.attrs["event.name"]) || str(r.body).replace(/^claude_code\./, "");
  if (!sid || !name) return [];
  const session: Session = sessionOf(r.resource, `claude-code:${sid}`, "Claude Code", sid);
  const seq = num(r.attrs["event.sequence"]);
  const prompt = str(r.attrs["prompt.id"]);
  // `(session, prompt, sequence)`: the sequence restarts at 0 on --resume, the prompt id does not repeat.
  const key = prompt && seq !== undefined ? `otel:cc:${sid}:${prompt}:${seq}` : `otel:cc:${sid}:${recordHash(r)}`;
  const base = { session, key, at: r.timeMs, tie: seq ?? 0 };
  const a = r.attrs;
  switch (name) {
    case "user_prompt": {
      const text = str(a.prompt);
      return [{ ...base, t: "prompt", ...(text && !REDACTED.test(text) ? { goal: goalOf(text) } : {}) }];
    }
    case "api_request":
      return [
        {
          ...base,
          t: "usage",
          usage: {
            input_tokens: count(a.input_tokens) ?? 0,
            output_tokens: count(a.output_tokens) ?? 0,
            cached_input_tokens: count(a.cache_read_tokens) ?? 0,
            cost_usd: Math.max(0, num(a.cost_usd) ?? 0),
          },
        },
      ];
    case "tool_decision": {
      const tool = str(a.tool_name);
      const callId = str(a.tool_use_id);
      if (!tool || !callId) return [];
      const call = { callId: clean(callId, TOOL_LIMITS.callId), tool: clean(tool, TOOL_LIMITS.tool), summary: tool };
      if (str(a.decision) === "reject")
        return [
          { ...base, t: "call.end", ...call, outcome: "denied", error: `refused (${str(a.source) || "policy"})` },
        ];
      // A decision says no input: the call goes on the record whole at its result, whose input gives
      // its summary (two requests apart when the command runs past an export interval).
      return [{ ...base, t: "running", tool: call.tool }];
    }
    case "tool_result":
      return toolResult(base, r);
    default:
      return [];
  }
}

/**
 * A todo list, when the input carries it: 2.1.141 writes nested values as "<nested>", so its
 * `TodoWrite` items are unreadable and the plan does not come through telemetry (hooks give it).
 */
function planOf(base: Omit<Fact, "t">, input: Record<string, unknown>): Fact[] {
  const todos = Array.isArray(input.todos) ? (input.todos as unknown[]) : [];
  const items = todos.filter(
    (t): t is Record<string, unknown> => !!t && typeof t === "object" && !!str((t as Record<string, unknown>).content),
  );
  if (!items.length) return [];
  return [
    {
      ...base,
      key: `${base.key}:plan`,
      t: "plan",
      steps: items.map((t) => ({
        title: str(t.content),
        state: t.status === "completed" ? "done" : t.status === "in_progress" ? "active" : "pending",
      })),
    },
  ];
}

function toolResult(base: Omit<Fact, "t">, r: LogRecord): Fact[] {
  const a = r.attrs;
  const tool = str(a.tool_name);
  const callId = str(a.tool_use_id);
  if (!tool || !callId) return [];
  // With OTEL_LOG_TOOL_DETAILS=1 the input comes as JSON text; without it, only the tool's name.
  const input = jsonObject(a.tool_input);
  const plan = PLAN_TOOLS.has(tool) ? planOf(base, input) : [];
  const params = jsonObject(a.tool_parameters);
  const text = callText(tool, Object.keys(input).length ? input : params);
  const duration = count(a.duration_ms);
  const ok = str(a.success) !== "false" && a.success !== false;
  const error = [str(a.error_type), str(a.error)].filter(Boolean).join(": ");
  const call: Fact = {
    ...base,
    t: "call.end",
    callId: clean(callId, TOOL_LIMITS.callId),
    tool: clean(tool, TOOL_LIMITS.tool),
    ...text,
    outcome: ok ? "ok" : "failed",
    ...(duration !== undefined ? { durationMs: duration, startedAt: iso(r.timeMs - duration) } : {}),
    ...(!ok && error ? { error: clean(error, TOOL_LIMITS.error) } : {}),
  };
  return [call, ...plan];
}
