"use client";

import { useState } from "react";
import type { Run } from "@/lib/core/protocol";
import { callsByStep, type RunCall } from "@/lib/core/review/tool-calls";
import { CallSummary, type CallState } from "@/components/room/call-summary";
import { formatBytes, MAX_OBJECT_BYTES, ObjectError, readObject } from "@/components/room/objects";
import { callTally, muted } from "./format";

const pre =
  "mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-words rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-900";

/** The whole output, read from the object store on demand ([RN3]); a shared view only says its size. */
function WholeOutput({ runId, call }: { runId: string | null; call: RunCall }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ref = call.output_ref!;
  if (!runId || ref.bytes > MAX_OBJECT_BYTES)
    return <p className={`mt-1 text-xs ${muted}`}>Whole output: {formatBytes(ref.bytes)} in the object store.</p>;
  if (text !== null) return <pre className={pre}>{text}</pre>;
  return (
    <p className="mt-1 text-xs">
      <button
        type="button"
        data-testid="call-whole-output"
        className="underline decoration-dotted hover:decoration-solid"
        onClick={() =>
          readObject(runId, ref.sha256, "output").then(setText, (e) =>
            setError(e instanceof ObjectError ? e.message : "Could not load the output."),
          )
        }
      >
        Show the whole output ({formatBytes(ref.bytes)})
      </button>
      {error && <span className="ml-2 text-red-700 dark:text-red-400">{error}</span>}
    </p>
  );
}

function CallRow({ runId, call, ended }: { runId: string | null; call: RunCall; ended: boolean }) {
  // A call of a finished run that never reported its end ended with the run ([TOOL4]).
  const state: CallState = call.outcome ?? (ended ? "cancelled" : "running");
  return (
    <li data-call-id={call.call_id} data-outcome={state} data-seq={call.seq}>
      <details className="group">
        <summary className="flex min-w-0 cursor-pointer items-baseline gap-2 py-0.5 text-xs">
          <CallSummary call={call} state={state} />
        </summary>
        <div className="mb-2 ml-5">
          {call.input && call.input !== call.summary && <pre className={pre}>{call.input}</pre>}
          {call.files.length > 0 && <p className={`mt-1 text-xs ${muted}`}>Wrote {call.files.join(", ")}</p>}
          {call.error && <pre className={`${pre} text-red-800 dark:text-red-300`}>{call.error}</pre>}
          {call.output && (
            <>
              <p className={`mt-1 text-xs ${muted}`}>
                Output
                {call.output_bytes !== null && call.output_bytes > call.output.length
                  ? ` (its end; ${formatBytes(call.output_bytes)} in all)`
                  : ""}
              </p>
              <pre className={pre}>{call.output}</pre>
            </>
          )}
          {call.output_ref && <WholeOutput runId={runId} call={call} />}
        </div>
      </details>
    </li>
  );
}

/**
 * The run page's tool calls ([TOOL6]): under each plan step its calls, with the step's count,
 * failures and time (the read model's), failed calls marked; then calls outside any step.
 * Each call opens to its input, files, error and output (the whole output on demand).
 */
export function ToolCallsSection({
  run,
  calls,
  runId,
}: {
  run: Run;
  calls: { list: RunCall[]; more: boolean };
  /** Null on a shared view: no object store reads. */
  runId: string | null;
}) {
  if (!run.tools) return <p className={`text-sm ${muted}`}>No tool calls on record.</p>;
  const groups = callsByStep(run, calls.list).filter((g) => g.calls.length || g.tally?.count);
  return (
    <div>
      <p className={`text-xs ${muted}`} data-testid="calls-total">
        {callTally(run.tools)}
        {calls.more && ` — the first ${calls.list.length} are listed`}
      </p>
      <ol className="mt-2 space-y-3">
        {groups.map((g) => {
          const tally = g.tally ?? {
            count: g.calls.length,
            failed: g.calls.filter((c) => c.outcome === "failed").length,
            ms: g.calls.reduce((n, c) => n + (c.duration_ms ?? 0), 0),
          };
          return (
            <li key={g.step_id ?? "outside"} data-testid="calls-step" data-step-id={g.step_id ?? ""}>
              <h3 className="flex flex-wrap items-baseline gap-x-2 text-sm">
                <span className="font-medium">{g.title}</span>
                <span
                  data-testid="calls-step-tally"
                  data-count={tally.count}
                  data-failed={tally.failed}
                  data-ms={tally.ms}
                  className={`text-xs ${tally.failed ? "text-red-700 dark:text-red-400" : muted}`}
                >
                  {callTally(tally)}
                </span>
              </h3>
              <ol className="mt-1 border-l-2 border-zinc-200 pl-2 dark:border-zinc-700">
                {g.calls.map((c) => (
                  <CallRow key={c.call_id} runId={runId} call={c} ended={run.state === "finished"} />
                ))}
              </ol>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
