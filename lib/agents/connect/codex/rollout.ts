import type { Usage } from "@/lib/core/protocol";
import type { AgentEvent } from "@/lib/agents/runner/adapter";
import { rolloutCall, rolloutOutput } from "./rollout-calls";

/**
 * One line of a Codex rollout file (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl`,
 * which an interactive Codex writes as it goes), read as what it means for a mirrored run.
 * Measured with Codex CLI 0.169.0 (test/connect-codex.pg.test.ts runs it interactively):
 *
 * - `session_meta` {payload: {id, cwd}} opens the file;
 * - `event_msg` `task_started` {turn_id} starts a turn, then `item_completed` with an
 *   item `UserMessage` {content: [{type: "text", text}]} carries the prompt;
 * - `response_item` `function_call` {name, arguments, call_id}: `update_plan` (the plan),
 *   `exec_command` {cmd} (a command) — and every call's start; `function_call_output`
 *   {call_id, output} its end (rollout-calls.ts);
 * - `event_msg` `item_completed` `AgentMessage` {content: [{text}]} — the agent's words;
 * - `token_usage_record` {turn_token_usage} — the turn's usage so far;
 * - `event_msg` `task_complete` ends the turn; `turn_aborted` ends it interrupted.
 *
 * Older and newer spellings seen in Codex's sources are read too (`user_message`,
 * `agent_message`, `token_count`).
 */
export type RolloutSignal =
  /** `source`: who runs the session — `exec`, or an interactive TUI (`cli`, `vscode` on the shared app-server). */
  | { kind: "session"; id: string; cwd: string; source: string }
  | { kind: "turn_started"; turnId: string }
  | { kind: "prompt"; text: string }
  | { kind: "agent"; event: AgentEvent }
  | { kind: "usage"; usage: Usage }
  | { kind: "turn_ended"; outcome: "succeeded" | "cancelled"; why?: string };

// Codex rollout lines are another program's JSON, read field by field with guards below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type J = Record<string, any>;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const texts = (content: unknown) => (Array.isArray(content) ? content.map((c: J) => str(c?.text)).join("") : "");

function args(raw: unknown): J {
  if (raw && typeof raw === "object") return raw as J;
  try {
    return JSON.parse(str(raw)) as J;
  } catch {
    return {};
  }
}

function usageOf(u: J | undefined): Usage | null {
  if (!u || typeof u.input_tokens !== "number") return null;
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens ?? 0,
    ...(typeof u.cached_input_tokens === "number" ? { cached_input_tokens: u.cached_input_tokens } : {}),
  };
}

export function readRolloutLine(line: string): RolloutSignal[] {
  let e: J;
  try {
    e = JSON.parse(line) as J;
  } catch {
    return [];
  }
  const p: J = e.payload ?? {};
  switch (e.type) {
    case "session_meta":
      return str(p.id) ? [{ kind: "session", id: str(p.id), cwd: str(p.cwd), source: str(p.source) }] : [];
    case "token_usage_record": {
      const u = usageOf(p.turn_token_usage);
      return u ? [{ kind: "usage", usage: u }] : [];
    }
    case "response_item": {
      const at = Date.parse(str(e.timestamp));
      return responseItem(p, Number.isFinite(at) ? at : undefined);
    }
    case "event_msg":
      return eventMsg(p);
    default:
      return [];
  }
}

function responseItem(p: J, at: number | undefined): RolloutSignal[] {
  if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
    const end = rolloutOutput(p, at);
    return end ? [{ kind: "agent", event: end }] : [];
  }
  if (p.type === "custom_tool_call") {
    const id = str(p.call_id) || str(p.id);
    return [{ kind: "agent", event: rolloutCall(str(p.name), {}, str(p.input), id, at) }];
  }
  if (p.type !== "function_call") return [];
  const a = args(p.arguments);
  const id = str(p.call_id) || str(p.id);
  const call: RolloutSignal = {
    kind: "agent",
    event: rolloutCall(str(p.name), a, typeof p.arguments === "string" ? p.arguments : JSON.stringify(a), id, at),
  };
  return [call, ...callShown(p, a, id)];
}

/** What a call's start shows besides the call itself: the plan, the typing indicator. */
function callShown(p: J, a: J, id: string): RolloutSignal[] {
  if (p.name === "update_plan" && Array.isArray(a.plan)) {
    return [
      {
        kind: "agent",
        event: {
          type: "plan",
          items: a.plan.map((s: J) => ({
            text: str(s.step),
            completed: s.status === "completed",
            active: s.status === "in_progress",
          })),
        },
      },
    ];
  }
  if (p.name === "exec_command" || p.name === "shell") {
    const cmd = Array.isArray(a.command) ? a.command.join(" ") : str(a.cmd) || str(a.command);
    return [{ kind: "agent", event: { type: "command", id, phase: "started", command: cmd } }];
  }
  return [{ kind: "agent", event: { type: "tool", id, phase: "started", verb: "Using", target: str(p.name) } }];
}

function eventMsg(p: J): RolloutSignal[] {
  switch (p.type) {
    case "task_started":
    case "turn_started":
      return [{ kind: "turn_started", turnId: str(p.turn_id) }];
    case "user_message":
      return [{ kind: "prompt", text: str(p.message) }];
    case "agent_message":
      return str(p.message) ? [{ kind: "agent", event: { type: "message", text: str(p.message) } }] : [];
    case "item_completed": {
      const item: J = p.item ?? {};
      if (item.type === "UserMessage") return [{ kind: "prompt", text: texts(item.content) }];
      if (item.type === "AgentMessage" && texts(item.content).trim())
        return [{ kind: "agent", event: { type: "message", text: texts(item.content) } }];
      return [];
    }
    case "task_complete":
    case "turn_complete":
      return [{ kind: "turn_ended", outcome: "succeeded" }];
    case "turn_aborted":
      return [
        {
          kind: "turn_ended",
          outcome: "cancelled",
          why: `Interrupted in the terminal (${str(p.reason) || "aborted"}).`,
        },
      ];
    default:
      return [];
  }
}
