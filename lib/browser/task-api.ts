import { ulid } from "ulid";
import type { Task } from "@/lib/core/protocol";
import { ROUTES } from "@/lib/core/routes";
import { ApiError, call } from "./api";

/**
 * The task calls the room's task board makes (docs/ROOM-STATE.md [TSK1]–[TSK4]), over
 * lib/browser/api.ts. A refusal is thrown as an ApiError; `taskProblem` reads the extras it
 * carries (`current`, `unmet`, `overlaps`).
 */

/** What the board's form sends: the whole task ([TSK1]). */
export interface TaskDraft {
  title: string;
  prompt: string;
  write_scope: string[];
  prerequisites: string[];
  auto_start: boolean;
  repository?: string;
  /** An edit names the prompt version it was based on. */
  prompt_version?: number;
}

/** A running task a start's write scope overlaps ([TSK4]). */
export interface Overlap {
  task_id: string;
  title: string;
  run_id: string | null;
  write_scope: string[];
}

/** What a refusal of a task call carries beyond its fields: the task as it now is, unmet prerequisites, overlapping running tasks. */
export function taskProblem(e: ApiError | null): { current?: Task; unmet?: string[]; overlaps?: Overlap[] } {
  const p = e?.problem ?? {};
  return {
    ...(p.current && typeof p.current === "object" ? { current: p.current as Task } : {}),
    ...(Array.isArray(p.unmet) ? { unmet: p.unmet as string[] } : {}),
    ...(Array.isArray(p.overlaps) ? { overlaps: p.overlaps as Overlap[] } : {}),
  };
}

/** Make a task (`taskId` null) or save an edit of one; a refusal is thrown as an ApiError. */
export async function saveTask(spaceId: string, taskId: string | null, draft: TaskDraft): Promise<string> {
  const body = { ...draft, idempotency_key: `task_${ulid()}` };
  const saved = taskId
    ? await call(ROUTES.editTask, { params: { space: spaceId, task: taskId }, body })
    : await call(ROUTES.makeTask, { params: { space: spaceId }, body });
  // The answer is the stored task.saved.
  if (saved.type !== "task.saved") throw new ApiError(500, null);
  return saved.task_id;
}

/** Start a task ([TSK3]); with `overrideOverlap` the person has confirmed an overlapping write scope ([TSK4]). */
export async function startTask(spaceId: string, taskId: string, overrideOverlap = false): Promise<string> {
  const r = await call(ROUTES.startTask, {
    params: { space: spaceId, task: taskId },
    body: { ...(overrideOverlap ? { override_overlap: true } : {}), idempotency_key: `start_${ulid()}` },
  });
  return r.run_id;
}
