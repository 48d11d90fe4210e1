import { z } from "zod";
import { LIMITS } from "./limits";
import { idOf, Instructions, ModelName, ProviderId, text } from "./fields";
import { StoredActor } from "./models";
import { PermissionProfile } from "./runner-contract";

/**
 * Tasks of a room (docs/ROOM-STATE.md, [TSK1]–[TSK5]): the read model the one projection
 * (lib/core/projection/tasks.ts) folds from `task.saved`, and the bodies of the task routes.
 */

/** Where a task stands, derived from its prerequisites and its newest run ([TSK2]). */
export const TaskStatus = z.enum(["waiting", "ready", "running", "done", "failed"]);
export type TaskStatus = z.infer<typeof TaskStatus>;

const Glob = text(LIMITS.title).refine(
  (g) => !g.startsWith("/") && !g.split("/").includes(".."),
  "a path glob relative to the repository, without ..",
);
const name = text(LIMITS.name);
const phase = text(LIMITS.phase);

/** A task as the last `task.saved` of its id left it. */
export const Task = z.object({
  workspace_id: z.string(),
  space_id: z.string(),
  task_id: z.string(),
  title: z.string(),
  prompt: z.string(),
  /** 1 when made; +1 on every save that changes the prompt ([TSK1]). */
  prompt_version: z.number().int(),
  write_scope: z.array(z.string()),
  prerequisites: z.array(z.string()),
  auto_start: z.boolean(),
  repository: z.string().nullable(),
  base_branch: z.string().nullable(),
  agent: z.string().nullable(),
  profile: z.string().nullable(),
  /** [RN5] defaults of the task's runs: the model, the provider (Codex) and the agent's instructions. */
  model: z.string().nullable(),
  provider: z.string().nullable(),
  instructions: z.string(),
  /** Who saved it last, when, and that event's seq; `created_seq` is its first save's. */
  actor: StoredActor,
  ts: z.string(),
  seq: z.number().int(),
  created_seq: z.number().int(),
});
export type Task = z.infer<typeof Task>;

/** A task with where it stands: its status and its newest run. */
export const TaskView = Task.extend({ status: TaskStatus, run_id: z.string().nullable() });
export type TaskView = z.infer<typeof TaskView>;

/** `POST /api/v1/spaces/:space/tasks` (make) and `PUT …/tasks/:task` (edit): the task as it should be. */
export const TaskBody = z.object({
  title: text(LIMITS.title),
  prompt: text(LIMITS.prompt),
  write_scope: z.array(Glob).min(1).max(100).default(["**"]),
  prerequisites: z.array(idOf("task")).max(100).default([]),
  auto_start: z.boolean().default(false),
  repository: name.optional(),
  base_branch: name.optional(),
  agent: phase.optional(),
  profile: phase.optional(),
  model: ModelName.optional(),
  provider: ProviderId.optional(),
  instructions: Instructions.optional(),
  /** An edit names the prompt version it was based on; a stale one is `409 revision_conflict`. */
  prompt_version: z.number().int().min(1).optional(),
  idempotency_key: z.string().min(1).max(LIMITS.idempotencyKey),
});
export type TaskBody = z.infer<typeof TaskBody>;

/** `POST /api/v1/spaces/:space/tasks/:task/start`: run the task (the task's defaults fill what is left out). */
export const StartTaskBody = z.object({
  repository: name.optional(),
  base_branch: name.optional(),
  agent: z.enum(["codex", "claude"]).optional(),
  profile: PermissionProfile.optional(),
  required_commands: z.array(text(4000)).max(20).default([]),
  model: ModelName.optional(),
  provider: ProviderId.optional(),
  instructions: Instructions.optional(),
  /** [TSK4] start although the write scope overlaps a running task's: recorded with the run. */
  override_overlap: z.boolean().default(false),
  idempotency_key: z.string().min(1).max(LIMITS.idempotencyKey),
});
export type StartTaskBody = z.infer<typeof StartTaskBody>;

/** `GET /api/v1/spaces/:space/tasks`: the room's tasks, each with where it stands. */
export const TasksAnswer = z.object({ tasks: z.array(TaskView) });
export type TasksAnswer = z.infer<typeof TasksAnswer>;
