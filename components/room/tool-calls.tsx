"use client";

import { useId, useState } from "react";
import type { RunTools, ToolCall } from "@/lib/core/protocol";
import { callTime } from "@/components/review/format";

/** How a call's state reads: running, or how it ended. */
const STATE: Record<ToolCall["outcome"] & string, { label: string; mark: string; tone: string }> = {
  ok: { label: "ok", mark: "✓", tone: "text-green-700 dark:text-green-400" },
  failed: { label: "failed", mark: "✗", tone: "text-red-700 dark:text-red-400" },
  denied: { label: "denied", mark: "⊘", tone: "text-amber-700 dark:text-amber-400" },
  cancelled: { label: "cancelled", mark: "–", tone: "text-zinc-600 dark:text-zinc-400" },
};
const RUNNING = { label: "running", mark: "…", tone: "text-blue-700 dark:text-blue-400" };

/** One call on one line: its state, tool, summary (the command), exit code and time. */
function CallLine({ call }: { call: ToolCall }) {
  const s = call.outcome ? STATE[call.outcome] : RUNNING;
  return (
    <li
      data-call-id={call.call_id}
      data-outcome={call.outcome ?? "running"}
      className="flex min-w-0 items-baseline gap-2 py-0.5 text-xs"
    >
      <span aria-hidden className={`w-3 shrink-0 text-center font-semibold ${s.tone}`}>
        {s.mark}
      </span>
      <span className="sr-only">{s.label}: </span>
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
    </li>
  );
}

/**
 * A run's tool calls under its dots ([TOOL5]): collapsed to a line — how many, how many
 * failed and running, and the newest call — that opens to the newest few, each with its
 * state, tool, command, exit code and time. Live: the run's read model changes with each
 * call's start and end, and this with it. Nothing here before the first call.
 */
export function ToolCalls({ tools }: { tools: RunTools | null }) {
  const [open, setOpen] = useState(false);
  const list = useId();
  if (!tools || tools.count === 0) return null;
  const newest = tools.last[tools.last.length - 1];
  return (
    <div
      data-testid="tool-calls"
      data-count={tools.count}
      data-failed={tools.failed}
      data-running={tools.running}
      className="mt-2"
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={list}
        onClick={() => setOpen((o) => !o)}
        className="flex w-full min-w-0 items-baseline gap-2 rounded text-left text-xs text-zinc-600 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:text-zinc-400 dark:hover:text-zinc-100"
      >
        <span aria-hidden className="shrink-0">
          {open ? "▾" : "▸"}
        </span>
        <span data-testid="tool-calls-tally" className="shrink-0 font-medium">
          {tools.count} {tools.count === 1 ? "call" : "calls"}
          {tools.failed > 0 && <span className="text-red-700 dark:text-red-400"> · {tools.failed} failed</span>}
          {tools.running > 0 && <span className="text-blue-700 dark:text-blue-400"> · {tools.running} running</span>}
        </span>
        {!open && newest && (
          <code className="min-w-0 flex-1 truncate font-mono" title={newest.summary}>
            {newest.tool}: {newest.summary}
          </code>
        )}
      </button>
      {open && (
        <ol
          id={list}
          aria-label="Latest tool calls"
          className="mt-1 border-l-2 border-zinc-200 pl-2 dark:border-zinc-700"
        >
          {[...tools.last].reverse().map((c) => (
            <CallLine key={c.call_id} call={c} />
          ))}
        </ol>
      )}
    </div>
  );
}
