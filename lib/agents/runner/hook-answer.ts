import type { ToolCall } from "./adapter";
import type { RunAsks } from "./asks";

/**
 * A hook's question ([RN9]): Codex's PreToolUse input → `{}` (run it) or a deny with the
 * reason. `live` is asked once the answer is in: a run that stopped meanwhile runs nothing.
 */
export async function hookAnswer(asks: RunAsks, input: Record<string, unknown>, live: () => boolean): Promise<string> {
  const call: ToolCall = {
    tool: typeof input.tool_name === "string" ? input.tool_name : "",
    input: (input.tool_input ?? {}) as Record<string, unknown>,
    toolUseId: typeof input.tool_use_id === "string" ? input.tool_use_id : null,
  };
  const d = await asks.decide(call);
  const running = live();
  await d.report(running);
  if (running && d.verdict.behavior === "allow") return "{}";
  const reason = d.verdict.behavior === "deny" ? d.verdict.message : "The run is stopping: not run.";
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason },
  });
}
