import type { PermissionProfile, StartRequest } from "@/lib/core/protocol/runner-contract";
import type { JobContext } from "./adapter";

/** What a job inherits from the runner's environment: enough to run tools, nothing of Chips'. */
const PASSED = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TERM", "TZ"];

/**
 * A job's environment: a short allowlist from the runner's own (never its Chips token or
 * other secrets), plus the secrets this one job named ([RN4]). CHIPS_JOB is added at launch.
 */
export function jobEnv(secrets: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASSED) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return { ...env, ...secrets };
}

/**
 * The repo guidance the agent reads (AGENTS.md in its CLI's home, not the worktree, so the
 * diff stays the agent's work): the room's intent and outcome at the request's revision, the
 * active decisions, the claimed write scope — §6, frozen in the start request.
 */
function guidanceFor(req: StartRequest): string {
  const lines = [
    "# Working in a Chips run",
    "",
    `You are working on run ${req.run_id} (task ${req.task_id}, prompt version ${req.prompt.version}) in a dedicated git worktree of ${req.repository}, based on ${req.base_branch}.`,
    "Chips commits checkpoints of your work for you: do not run `git commit` yourself.",
    "Keep a plan with your plan or todo tool when the work has several steps: people watch it.",
    "",
  ];
  if (req.room.intent) lines.push("## What the people want (intent)", "", req.room.intent, "");
  if (req.room.outcome) lines.push("## What done looks like (outcome)", "", req.room.outcome, "");
  if (req.decisions.length)
    lines.push("## Decisions in force", "", ...req.decisions.map((d) => `- ${d.title}: ${d.text}`), "");
  lines.push("## Where you may write", "", ...req.write_scope.map((g) => `- \`${g}\``), "");
  return lines.join("\n");
}

/** What an adapter is told of a job: where it runs and what the start request asked of the agent. */
export function jobContext(req: StartRequest, worktree: string, jobDir: string, askSeconds: number): JobContext {
  return {
    runId: req.run_id,
    worktree,
    jobDir,
    profile: req.profile as PermissionProfile,
    model: req.model,
    provider: req.provider,
    instructions: req.instructions,
    guidance: guidanceFor(req),
    askSeconds,
  };
}
