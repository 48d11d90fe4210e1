import { clipUtf8 } from "@/lib/core/protocol/clip";
import type { AgentEvent } from "../adapter";
import { claudeCall, editedFile, exitCodeOf, failedOutcome, resultText } from "./claude-calls";

/** How much of a failed tool's output or of Claude's error a notice or a failure quotes, in UTF-8 bytes. */
const QUOTED_BYTES = 2000;

/**
 * Claude Code's `stream-json` output, line by line, as the runner's agent events: messages,
 * tool calls with what they show (plan, file changes, commands), permission requests ([RN6]),
 * usage and the turn's end. It remembers the calls it saw, since a result names only its id.
 */
export class ClaudeStream {
  /** Tool calls seen, by id: a result names only its `tool_use_id`. */
  private calls = new Map<string, { name: string; input: Record<string, unknown> }>();

  parse(line: string, denialsAnswered: boolean): AgentEvent[] {
    let e: ClaudeLine;
    try {
      e = JSON.parse(line) as ClaudeLine;
    } catch {
      return [];
    }
    if (e.type === "control_request" && e.request?.subtype === "can_use_tool" && e.request_id) {
      const r = e.request;
      return [
        {
          type: "permission",
          requestId: e.request_id,
          call: { tool: String(r.tool_name ?? ""), input: r.input ?? {}, toolUseId: r.tool_use_id ?? null },
        },
      ];
    }
    if (e.type === "control_cancel_request" && e.request_id)
      return [{ type: "permission_withdrawn", requestId: e.request_id }];
    if (e.parent_tool_use_id) return []; // a sub-agent's own steps: its Task call stands for them
    switch (e.type) {
      case "system":
        return e.subtype === "init" && typeof e.session_id === "string" ? [{ type: "session", id: e.session_id }] : [];
      case "assistant":
        // An API error comes as a made-up assistant message; the `result` after it carries the reason.
        if (e.error || e.message?.model === "<synthetic>") return [];
        return (e.message?.content ?? []).flatMap((c) => this.assistantBlock(c));
      case "user":
        return (e.message?.content ?? []).flatMap((c) => (c.type === "tool_result" ? this.toolResult(c) : []));
      case "result":
        return resultEvents(e, denialsAnswered);
      default:
        return [];
    }
  }

  private assistantBlock(c: ContentBlock): AgentEvent[] {
    if (c.type === "text") return c.text?.trim() ? [{ type: "message", text: c.text }] : [];
    if (c.type === "thinking") return [{ type: "reasoning", text: c.thinking ?? "" }];
    if (c.type !== "tool_use" || !c.id || !c.name) return [];
    const input = (c.input ?? {}) as Record<string, unknown>;
    this.calls.set(c.id, { name: c.name, input });
    if (this.calls.size > 1000) this.calls.delete(this.calls.keys().next().value!); // results that never came
    const call: AgentEvent = { type: "call_started", id: c.id, ...claudeCall(c.name, input) };
    return [call, ...this.startedBlock(c.id, c.name, input)];
  }

  /** What a call's start shows besides the call itself: the plan (TodoWrite), the typing indicator. */
  private startedBlock(id: string, name: string, input: Record<string, unknown>): AgentEvent[] {
    if (name === "TodoWrite") {
      const todos = Array.isArray(input.todos) ? (input.todos as Array<{ content?: string; status?: string }>) : [];
      return [
        {
          type: "plan",
          items: todos.map((t) => ({
            text: String(t.content ?? ""),
            completed: t.status === "completed",
            active: t.status === "in_progress",
          })),
        },
      ];
    }
    const file = editedFile(name, input);
    if (file !== null) return [{ type: "file_change", id, phase: "started", paths: [file] }];
    if (name === "Bash") return [{ type: "command", id, phase: "started", command: String(input.command ?? "") }];
    return []; // Read, Grep, Glob…: nothing to show until they fail
  }

  private toolResult(c: ContentBlock): AgentEvent[] {
    const call = c.tool_use_id ? this.calls.get(c.tool_use_id) : undefined;
    if (!call) return [];
    this.calls.delete(c.tool_use_id!);
    const output = resultText(c.content);
    const edited = editedFile(call.name, call.input);
    const outcome = c.is_error ? failedOutcome(output) : "ok";
    const ended: AgentEvent = {
      type: "call_finished",
      id: c.tool_use_id!,
      outcome,
      ...(call.name === "Bash" ? { exitCode: exitCodeOf(output) ?? (c.is_error ? null : 0) } : {}),
      output,
      ...(edited !== null && !c.is_error ? { files: [edited] } : {}),
      // A failed command's output says why (its exit code and stderr); another tool's result is its error.
      ...(c.is_error && call.name !== "Bash" ? { error: output } : {}),
    };
    return [ended, ...this.resultBlock(c, call, output, outcome === "denied")];
  }

  /**
   * What a call's end shows besides the call itself: a failure's log line, the file changed, the
   * command's log — or, for a call refused before it ran, only that it was not run and why (no
   * "exit 1" for a command that never started, no "changed" for a file never written).
   */
  private resultBlock(
    c: ContentBlock,
    call: { name: string; input: Record<string, unknown> },
    output: string,
    denied: boolean,
  ): AgentEvent[] {
    if (call.name === "TodoWrite") return [];
    const file = editedFile(call.name, call.input);
    if (denied) {
      const what = file ?? (call.name === "Bash" ? String(call.input.command ?? "") : "");
      return [
        { type: "notice", message: `${call.name}${what ? ` ${what}` : ""} not run: ${clipUtf8(output, QUOTED_BYTES)}` },
      ];
    }
    const failed: AgentEvent[] = c.is_error
      ? [{ type: "notice", message: `${call.name}${file ? ` ${file}` : ""} failed: ${clipUtf8(output, QUOTED_BYTES)}` }]
      : [];
    if (file !== null)
      return [...failed, { type: "file_change", id: c.tool_use_id!, phase: "completed", paths: [file] }];
    if (call.name !== "Bash") return failed;
    const code = exitCodeOf(output);
    const command = String(call.input.command ?? "");
    return [
      {
        type: "command",
        id: c.tool_use_id!,
        phase: "completed",
        command,
        output,
        exitCode: code ?? (c.is_error ? 1 : 0),
      },
    ];
  }
}

/** `result`: usage and cost, then finished — or failed with the reason (error subtypes, `is_error`, denials). */
function resultEvents(e: ClaudeLine, denialsAnswered: boolean): AgentEvent[] {
  const out: AgentEvent[] = [];
  if (e.usage) {
    const u = e.usage;
    out.push({
      type: "usage",
      usage: {
        input_tokens: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
        output_tokens: u.output_tokens ?? 0,
        cached_input_tokens: u.cache_read_input_tokens ?? 0,
        ...(typeof e.total_cost_usd === "number" ? { cost_usd: e.total_cost_usd } : {}),
      },
    });
  }
  const denials = denialsAnswered ? [] : (e.permission_denials ?? []);
  if (e.is_error || (e.subtype && e.subtype !== "success")) {
    const why = e.result || (e.errors ?? []).join("; ") || e.subtype || "error";
    out.push({ type: "turn_failed", message: `claude: ${clipUtf8(String(why), QUOTED_BYTES)}` });
  } else if (denials.length) {
    const names = denials.map((d) =>
      [d.tool_name, d.tool_input?.file_path ?? d.tool_input?.command ?? d.tool_input?.url ?? ""].join(" ").trim(),
    );
    out.push({ type: "turn_failed", message: `claude was denied: ${clipUtf8(names.join(", "), QUOTED_BYTES)}` });
  } else {
    out.push({ type: "turn_completed" });
  }
  return out;
}

interface ContentBlock {
  type: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}
interface ClaudeLine {
  type: string;
  request_id?: string;
  request?: {
    subtype?: string;
    tool_name?: string;
    input?: Record<string, unknown>;
    tool_use_id?: string;
  };
  subtype?: string;
  session_id?: string;
  parent_tool_use_id?: string | null;
  message?: { model?: string; content?: ContentBlock[] };
  is_error?: boolean;
  result?: string;
  errors?: string[];
  total_cost_usd?: number;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
  permission_denials?: Array<{
    tool_name: string;
    tool_input?: { file_path?: string; command?: string; url?: string };
  }>;
  error?: string;
}
