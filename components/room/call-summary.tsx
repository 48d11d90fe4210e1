import type { ToolCall } from "@/lib/core/protocol";
import { callTime } from "@/components/review/format";

/** How a call's state reads: running, or how it ended. */
const STATE = {
  ok: { mark: "✓", tone: "text-green-700 dark:text-green-400" },
  failed: { mark: "✗", tone: "text-red-700 dark:text-red-400" },
  denied: { mark: "⊘", tone: "text-amber-700 dark:text-amber-400" },
  cancelled: { mark: "–", tone: "text-zinc-600 dark:text-zinc-400" },
  running: { mark: "…", tone: "text-blue-700 dark:text-blue-400" },
} as const;

export type CallState = keyof typeof STATE;

/**
 * One tool call on one line, in the room's panel ([TOOL5]) and on the run page ([TOOL6]) alike:
 * its state (a mark, and in words for a screen reader), tool, summary (the command), its exit
 * code when it failed, and its time. The parent is the line (a flex row).
 */
export function CallSummary({ call, state }: { call: ToolCall; state: CallState }) {
  const s = STATE[state];
  return (
    <>
      <span aria-hidden className={`w-3 shrink-0 text-center font-semibold ${s.tone}`}>
        {s.mark}
      </span>
      <span className="sr-only">{state}: </span>
      <span className="shrink-0 font-medium text-zinc-700 dark:text-zinc-300">{call.tool}</span>
      <code className="min-w-0 flex-1 truncate font-mono text-zinc-700 dark:text-zinc-300" title={call.summary}>
        {call.summary}
      </code>
      {call.exit_code !== null && call.exit_code !== 0 && (
        <span className={`shrink-0 ${s.tone}`}>exit {call.exit_code}</span>
      )}
      {call.duration_ms !== null && (
        <span className="shrink-0 tabular-nums text-zinc-600 dark:text-zinc-400">{callTime(call.duration_ms)}</span>
      )}
    </>
  );
}
