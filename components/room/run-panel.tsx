"use client";

import type { Run } from "@/lib/core/protocol";
import { useRoomActions } from "./room-context";
import { Receipts, RunControls } from "./run-controls";
import { runHarnessName, type Directory } from "../../lib/core/views/names";
import { PlanDots } from "./plan-dots";
import { ToolCalls } from "./tool-calls";
import { ChangeSet } from "./change-set";
import { RunnerLines } from "./run-request";
import { ChangeSetPayload } from "@/lib/core/protocol/runner-contract";
import { useMemo } from "react";
import { NeedsYou } from "../asks/needs-you";

const VERDICT_LABEL = { approved: "approved", needs_work: "needs work", rejected: "rejected" } as const;
const VERDICT_TONE = {
  approved: "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200",
  needs_work: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  rejected: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
} as const;

const PENDING_LABEL: Record<string, string> = { pausing: "pausing…", resuming: "resuming…", cancelling: "cancelling…" };

function stateLabel(run: Run): { text: string; tone: string } {
  if (run.pending && PENDING_LABEL[run.pending])
    return {
      text: PENDING_LABEL[run.pending],
      tone: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
    };
  switch (run.state) {
    case "queued":
      return {
        text: run.runner ? "starting" : "queued",
        tone: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
      };
    case "running":
      return { text: "running", tone: "bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200" };
    case "paused":
      return { text: "paused", tone: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200" };
    case "finished":
      return run.outcome === "succeeded"
        ? { text: "succeeded", tone: "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200" }
        : run.outcome === "cancelled"
          ? { text: "cancelled", tone: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200" }
          : { text: "failed", tone: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200" };
  }
}

/**
 * The run panel ([UI1], [UI3], [UI6]): state with its pending flag, harness, session_ref,
 * the plan's dots, and the goal as a heading only when no person's words carry it.
 */
export function RunPanel({ run, dir }: { run: Run; dir: Directory }) {
  const actions = useRoomActions();
  const presence = run.state === "finished" ? undefined : actions?.presenceOf(run);
  const label = stateLabel(run);
  const tokens = run.usage ? run.usage.input_tokens + run.usage.output_tokens : null;
  // The runner's payload is its word: drawn only when it has the change-set's shape.
  const changeSet = useMemo(
    () => (run.change_set ? ChangeSetPayload.safeParse(run.change_set).data : undefined),
    [run.change_set],
  );
  return (
    <section
      aria-label={`Run by ${runHarnessName(dir, run)}, started ${(run.started_at ?? run.created_at).slice(11, 19)} UTC (…${run.id.slice(-4)})`}
      data-run-id={run.id}
      data-run-state={run.state}
      {...(run.pending ? { "data-pending": run.pending } : {})}
      {...(presence ? { "data-presence": presence } : {})}
      className="rounded-lg border border-zinc-200 bg-white p-3 shadow-xs dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
        <span data-testid="run-harness" className="font-medium">
          {runHarnessName(dir, run)}
        </span>
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-[11px] font-medium uppercase tracking-wide text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
          run
        </span>
        <span data-testid="run-state" className={`rounded-full px-2 py-0.5 text-xs font-medium ${label.tone}`}>
          {label.text}
        </span>
        <NeedsYou run={run} />
        {presence === "unresponsive" && (
          <span
            data-testid="run-unresponsive"
            className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-200"
          >
            harness unresponsive
          </span>
        )}
        {run.review?.verdict && (
          <span
            data-testid="run-verdict"
            data-verdict={run.review.verdict}
            className={`rounded-full px-2 py-0.5 text-xs font-medium ${VERDICT_TONE[run.review.verdict]}`}
          >
            {VERDICT_LABEL[run.review.verdict]}
          </span>
        )}
        {run.session_ref && (
          <span
            data-testid="run-session-ref"
            className="max-w-full truncate text-xs text-zinc-600 dark:text-zinc-400"
            title={run.session_ref}
          >
            {run.session_ref}
          </span>
        )}
      </div>
      {run.goal_from === null && (
        <h3 data-testid="run-goal" data-run-id={run.id} className="mt-1.5 text-[15px] font-semibold leading-snug">
          {run.goal}
        </h3>
      )}
      <RunnerLines run={run} />
      <PlanDots plan={run.plan} />
      <ToolCalls tools={run.tools} />
      {changeSet && <ChangeSet runId={run.id} cs={changeSet} />}
      {actions?.canAct && (
        <RunControls
          run={run}
          unresponsive={presence === "unresponsive"}
          send={actions.send}
          forceFinish={actions.forceFinish}
        />
      )}
      {actions && <Receipts receipts={actions.receipts[run.id] ?? []} dir={dir} />}
      {(run.summary || tokens !== null) && (
        <div className="mt-2 flex flex-wrap gap-x-4 text-xs text-zinc-600 dark:text-zinc-400">
          {run.summary && <p className="min-w-0 whitespace-pre-wrap break-words">{run.summary}</p>}
          {tokens !== null && (
            <p>
              {tokens.toLocaleString("en-US")} tokens
              {run.usage?.cost_usd !== undefined && ` · $${run.usage.cost_usd.toFixed(4)}`}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
