import type { Run, RunFacets } from "@/lib/core/protocol";
import { ChangeSetPayload } from "@/lib/core/protocol/runner-contract";

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
