import { TOOL_LIMITS } from "@/lib/core/protocol";
import { callText, clean, count, goalOf, iso, jsonObject, tail, type Fact } from "./facts";
import type { LogRecord } from "./records";
import { recordHash, sessionOf } from "./sessions-of";

/**
 * Codex's OTel log events ([OTL5]; measured with 0.169, docs/OTEL.md): `codex.user_prompt`,
 * `codex.sse_event` (usage on `response.completed`), `codex.tool_decision` and
 * `codex.tool_result` joined on `call_id`. Codex's `success` says the tool was dispatched, not
 * that the command succeeded: the exit code is read from the output text.
 */

export function isCodex(r: LogRecord): boolean {
  const service = r.resource["service.name"];
  return (
    (typeof service === "string" && service.startsWith("codex")) ||
    r.scope.startsWith("codex_otel") ||
    String(r.attrs["event.name"] ?? "").startsWith("codex.")
  );
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const EXIT = /Process exited with code (-?\d+)/;
const DENIED = new Set(["denied", "abort", "rejected"]);

export function codexFacts(r: LogRecord): Fact[] {
  const f = codexFact(r);
  return f ? [f] : [];
}

function codexFact(r: LogRecord): Fact | null {
  const a = r.attrs;
  const conv = str(a["conversation.id"]);
  const name = str(a["event.name"]);
  if (!conv || !name) return null;
  const session = sessionOf(r.resource, `codex:${conv}`, "Codex", conv);
  const callId = str(a.call_id);
  // Tool events by their call; the rest by what they say (Codex sends no sequence).
  const key = callId ? `otel:cx:${conv}:${callId}:${name}` : `otel:cx:${conv}:${recordHash(r)}`;
  const base = { session, key, at: r.timeMs, tie: Number(r.timeNs.slice(-6)) || 0 };
  switch (name) {
    case "codex.user_prompt": {
      const text = str(a.prompt);
      return { ...base, t: "prompt", ...(text && text !== "[REDACTED]" ? { goal: goalOf(text) } : {}) };
    }
    case "codex.sse_event":
      if (str(a["event.kind"]) !== "response.completed") return null;
      return {
        ...base,
        t: "usage",
        usage: {
          input_tokens: count(a.input_token_count) ?? 0,
          output_tokens: count(a.output_token_count) ?? 0,
          cached_input_tokens: count(a.cached_token_count) ?? 0,
        },
      };
    case "codex.tool_decision": {
      const tool = str(a.tool_name);
      if (!tool || !callId || tool === "update_plan") return null;
      const call = { callId: clean(callId, TOOL_LIMITS.callId), tool: clean(tool, TOOL_LIMITS.tool), summary: tool };
      if (DENIED.has(str(a.decision)))
        return { ...base, t: "call.end", ...call, outcome: "denied", error: `refused (${str(a.source) || "policy"})` };
      // As Claude Code's: the call goes on the record whole at its result, which has the command.
      return { ...base, t: "running", tool: call.tool };
    }
    case "codex.tool_result":
      return toolResult(base, r, callId);
    default:
      return null;
  }
}

function toolResult(base: Omit<Fact, "t">, r: LogRecord, callId: string): Fact | null {
  const a = r.attrs;
  const tool = str(a.tool_name);
  if (!tool || !callId) return null;
  const args = jsonObject(a.arguments);
  if (tool === "update_plan") {
    const plan = Array.isArray(args.plan) ? (args.plan as Array<Record<string, unknown>>) : [];
    if (!plan.length) return null;
    return {
      ...base,
      t: "plan",
      steps: plan.map((p) => ({
        title: str(p.step),
        state: p.status === "completed" ? "done" : p.status === "in_progress" ? "active" : "pending",
      })),
    };
  }
  const output = str(a.output);
  const exit = EXIT.exec(output);
  const exitCode = exit ? Number(exit[1]) : undefined;
  const dispatched = str(a.success) !== "false";
  const outcome = !dispatched ? "failed" : exitCode !== undefined && exitCode !== 0 ? "failed" : "ok";
  const duration = count(a.duration_ms);
  return {
    ...base,
    t: "call.end",
    callId: clean(callId, TOOL_LIMITS.callId),
    tool: clean(tool, TOOL_LIMITS.tool),
    ...callText(tool, args),
    outcome,
    ...(exitCode !== undefined && Number.isInteger(exitCode) && Math.abs(exitCode) < 2 ** 31 ? { exitCode } : {}),
    ...(duration !== undefined ? { durationMs: duration, startedAt: iso(r.timeMs - duration) } : {}),
    ...(output ? { output: tail(output, TOOL_LIMITS.output), outputBytes: Buffer.byteLength(output) } : {}),
  };
}
