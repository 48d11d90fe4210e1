import type { Run } from "@/lib/protocol";
import { ChangeSetPayload } from "@/lib/runner";

/**
 * What the runs page filters, sorts and shows of a run, taken from its read model (the one
 * projection's `Run`): kept in `run_index` next to the run's search words, so the list
 * never has to open plans, usage or change-sets row by row.
 */
export interface RunFacets {
  agent: string | null;
  duration_ms: number | null;
  steps_done: number;
  steps_planned: number;
  tokens: number | null;
  cost_usd: number | null;
  files: number | null;
  additions: number | null;
  deletions: number | null;
  failed_checks: number | null;
}

/** A run's duration: started (or created, for a queued run) to finished. */
export function durationMs(run: Pick<Run, "started_at" | "created_at" | "finished_at">): number | null {
  if (!run.finished_at) return null;
  return Math.max(0, Date.parse(run.finished_at) - Date.parse(run.started_at ?? run.created_at));
}

/** The agent of a run: what a person asked a runner for (codex, claude), or the agent that started it. */
export function agentOf(run: Pick<Run, "request" | "actor">): string | null {
  if (run.request) return run.request.agent;
  return run.actor?.kind === "agent" ? run.actor.id : null;
}

export function facetsOf(run: Run): RunFacets {
  const cs = run.change_set ? ChangeSetPayload.safeParse(run.change_set).data : undefined;
  return {
    agent: agentOf(run),
    duration_ms: durationMs(run),
    steps_done: run.plan.filter((s) => s.state === "done").length,
    steps_planned: run.plan.length,
    tokens: run.usage ? run.usage.input_tokens + run.usage.output_tokens : null,
    cost_usd: run.usage?.cost_usd ?? null,
    files: cs ? cs.files.length : null,
    additions: cs ? cs.additions : null,
    deletions: cs ? cs.deletions : null,
    failed_checks: cs ? cs.checks.filter((c) => !c.passed).length : null,
  };
}
