import type { AgentEvent } from "@/lib/agents/runner/adapter";

/**
 * A Codex rollout's tool calls ([TOOL3]), measured with Codex CLI 0.169: `response_item`
 * `function_call` {name, arguments, call_id} starts one (`custom_tool_call` {name, input,
 * call_id} too), and `function_call_output` / `custom_tool_call_output` {call_id, output}
 * ends it. A command's output is Codex's report of it: "Process exited with code N" (or
 * "Exit code: N"), "Wall time: 0.3 seconds", then "Output:" and what it printed. `at` is the
 * line's own timestamp: a watcher may read the file long after it was written.
 */

// Rollout lines are another program's JSON, read field by field with guards.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type J = Record<string, any>;
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** What a call is, from its name and arguments: a command's line, else the tool and its arguments. */
export function rolloutCall(name: string, args: J, raw: string, id: string, at?: number): AgentEvent {
  const command = Array.isArray(args.command) ? args.command.join(" ") : str(args.cmd) || str(args.command);
  const summary = command || `${name} ${raw}`;
  return { type: "call_started", id, tool: name || "tool", summary, input: command || raw, at };
}

/** A call's end from Codex's report of it. */
export function rolloutOutput(p: J, at?: number): AgentEvent | null {
  const id = str(p.call_id);
  if (!id) return null;
  const report = typeof p.output === "string" ? p.output : str(p.output?.content) || JSON.stringify(p.output ?? "");
  const code = /(?:Process exited with code|Exit code:)\s*(-?\d+)/.exec(report);
  const wall = /Wall time:\s*([\d.]+)\s*seconds/.exec(report);
  const cut = report.indexOf("Output:\n");
  const exitCode = code ? Number(code[1]) : null;
  return {
    type: "call_finished",
    id,
    outcome: exitCode !== null && exitCode !== 0 ? "failed" : p.output?.success === false ? "failed" : "ok",
    ...(exitCode !== null ? { exitCode } : {}),
    ...(wall ? { durationMs: Math.round(Number(wall[1]) * 1000) } : {}),
    output: cut >= 0 ? report.slice(cut + "Output:\n".length) : report,
    at,
  };
}
