import { z } from "zod";
import { GoalFrom, idOf, Instructions, optionalText, ProviderId, text } from "./fields";
import { LIMITS } from "./limits";
import { event } from "./envelope";

/** Events of a run a person started and Chips dispatches to a runner ([RN1]): what was asked, queued, assigned. */

/**
 * What a task's run froze when it was started ([TSK3]): the room's revision, intent and outcome,
 * its active decisions, the task's write scope, prerequisites and prompt version — and, when a
 * person confirmed a start over a running task's scope, that override ([TSK4]).
 */
export const TaskSnapshot = z.object({
  task_id: idOf("task"),
  room: z.object({
    revision: z.number().int().min(0),
    intent: optionalText(LIMITS.text),
    outcome: optionalText(LIMITS.text),
  }),
  decisions: z
    .array(z.object({ decision_id: text(LIMITS.stepId), title: text(LIMITS.title), text: text(LIMITS.text) }))
    .max(200),
  write_scope: z.array(text(LIMITS.title)).max(100),
  prerequisites: z.array(idOf("task")).max(100),
  prompt: z.object({ text: text(LIMITS.prompt), version: z.number().int().min(1) }),
  override: z.object({ overlaps: z.array(idOf("task")).max(100), by: text(LIMITS.name) }).optional(),
});
export type TaskSnapshot = z.infer<typeof TaskSnapshot>;

/** What a person asked a runner for: the `request` of `run.queued`, kept on the run. */
export const RunRequest = z.object({
  repository: text(LIMITS.name),
  base_branch: text(LIMITS.name),
  agent: text(LIMITS.phase),
  profile: text(LIMITS.phase),
  required_commands: z.array(text(LIMITS.note)).max(20),
  secrets: z.array(text(LIMITS.phase)).max(20),
  model: text(LIMITS.name).optional(),
  /** The person's whole prompt, when it is longer than a goal may be (the goal is then its cut, [LIM1]). */
  prompt: text(LIMITS.prompt).optional(),
  /** [RN5] the model provider (Codex) and the agent's instructions, when the start named them. */
  provider: ProviderId.optional(),
  instructions: Instructions.optional(),
  /** A task's run ([TSK3]): what its start request froze, so the run page and the runner see the same. */
  task: TaskSnapshot.optional(),
});
export type RunRequest = z.infer<typeof RunRequest>;

/** Chips queued a run a person started (`POST /api/v1/runs`); a runner will take it ([RN1], §5). */
export const RunQueued = event("run.queued", {
  goal: text(LIMITS.goal),
  goal_from: GoalFrom.optional(),
  request: RunRequest,
});

/** Chips handed a queued run to a runner (with a lease); the runner's run.started takes it to running. */
export const RunAssigned = event("run.assigned", {
  runner_id: idOf("runner"),
  runner_name: text(LIMITS.name),
});
