import type { ToolCall } from "./adapter";
import type { RunAsks } from "./asks";
import { denyLine, type HookReply } from "./ask-socket";

/**
 * A hook's question ([RN9]): Codex's PreToolUse input → `{}` (run it) or a deny with the
 * reason. `live` is asked once the answer is in: a run that stopped meanwhile runs nothing.
 * The hook gets its line first and the receipt (`run.answer_applied`) is posted after it left:
 * Codex waits on the line, not on Chips hearing about it.
 */
export async function hookAnswer(
  asks: RunAsks,
  input: Record<string, unknown>,
  live: () => boolean,
): Promise<HookReply> {
  const call: ToolCall = {
    tool: typeof input.tool_name === "string" ? input.tool_name : "",
    input: (input.tool_input ?? {}) as Record<string, unknown>,
    toolUseId: typeof input.tool_use_id === "string" ? input.tool_use_id : null,
  };
  const d = await asks.decide(call);
  const running = live();
  const line =
    running && d.verdict.behavior === "allow"
      ? "{}"
      : denyLine(d.verdict.behavior === "deny" ? d.verdict.message : "The run is stopping: not run.");
  return { line, after: (delivered) => d.report(delivered && running) };
}
