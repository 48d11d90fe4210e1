import type { ToolOutcome } from "@/lib/core/protocol";

/**
 * Claude Code's tool calls in one line each ([TOOL3]), for both places that see them: the
 * runner's stream-json (`tool_use` / `tool_result`, adapters/claude.ts) and `chips connect
 * claude`'s hooks (`PreToolUse` / `PostToolUse` / `PostToolUseFailure`, connect/claude/).
 */

const str = (v: unknown) => (typeof v === "string" ? v : "");

/** The file an editing tool changes; null for every other tool (Read names a file too, and changes none). */
export function editedFile(tool: string, input: Record<string, unknown>): string | null {
  const p = input.file_path ?? input.notebook_path;
  return EDITS.has(tool) && typeof p === "string" ? p : null;
}
const EDITS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

/** What a call is: its tool, its summary (the command; `Edit src/x.ts`), its input and the paths it names. */
export function claudeCall(tool: string, input: Record<string, unknown>) {
  const file = str(input.file_path) || str(input.notebook_path);
  const path = str(input.path);
  const paths = [file, path].filter(Boolean);
  const json = JSON.stringify(input);
  const said = (summary: string, more?: string) => ({
    tool,
    summary: summary || tool,
    ...(more ? { input: more } : {}),
    ...(paths.length ? { paths } : {}),
  });
  switch (tool) {
    case "Bash":
      return said(str(input.command), str(input.command));
    case "Edit":
    case "Write":
    case "MultiEdit":
    case "NotebookEdit":
    case "Read":
      return said(`${tool} ${file}`);
    case "Grep":
      return said(`Grep ${str(input.pattern)}${path ? ` in ${path}` : ""}`, json);
    case "Glob":
      return said(`Glob ${str(input.pattern)}${path ? ` in ${path}` : ""}`);
    case "WebFetch":
      return said(`WebFetch ${str(input.url)}`, json);
    case "WebSearch":
      return said(`WebSearch ${str(input.query)}`);
    case "Task":
    case "Agent":
      return said(`${tool} ${str(input.description) || str(input.subagent_type)}`, str(input.prompt));
    case "TodoWrite":
      return said(`TodoWrite ${Array.isArray(input.todos) ? input.todos.length : 0} todos`);
    default:
      return said(`${tool} ${json}`, json);
  }
}

/** Text of a tool result's content: a string, or the text blocks of a list. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c: { text?: unknown }) => (typeof c?.text === "string" ? c.text : "")).join("");
}

/**
 * Chips' own refusals — a runner's (no answer in time, Chips unreachable, the run's end, a tool
 * outside the permission profile) and its hooks' — each say the call was "not run".
 */
const CHIPS_REFUSED = /\bnot run\.|is not allowed in this run's permission profile/;

/** How a failed call ended: refused before it ran (a permission, a hook, Chips), interrupted, or failed. */
export function failedOutcome(text: string, interrupted = false): ToolOutcome {
  if (interrupted || /^\[Request interrupted/.test(text)) return "cancelled";
  if (exitCodeOf(text) !== null) return "failed"; // it ran: whatever its output says
  if (/has been denied|haven't granted|denied this tool|hook PreToolUse|permission to use/i.test(text)) return "denied";
  if (CHIPS_REFUSED.test(text)) return "denied";
  return "failed";
}

/** A failed Bash call's result starts "Exit code <n>". */
export function exitCodeOf(text: string): number | null {
  const m = /^Exit code (-?\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}
