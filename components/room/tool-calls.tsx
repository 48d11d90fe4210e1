"use client";

import { useId, useState } from "react";
import type { RunTools, ToolCall } from "@/lib/core/protocol";
import { CallSummary } from "./call-summary";

/** One call on one line: its state, tool, summary (the command), exit code and time. */
function CallLine({ call }: { call: ToolCall }) {
  return (
    <li
      data-call-id={call.call_id}
      data-outcome={call.outcome ?? "running"}
      className="flex min-w-0 items-baseline gap-2 py-0.5 text-xs"
    >
      <CallSummary call={call} state={call.outcome ?? "running"} />
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
