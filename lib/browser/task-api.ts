import { ulid } from "ulid";
import type { Task } from "@/lib/core/protocol";
import { ROUTES } from "@/lib/core/routes";
import { ApiError, call, failureLine } from "./api";

/**
 * The task calls the room's task board makes (docs/ROOM-STATE.md [TSK1]–[TSK4]), over
 * lib/browser/api.ts. A refusal comes back as data: the fields at fault (by body field), a line
 * for the rest, and the problem's extras a refusal carries (`current`, `unmet`, `overlaps`).
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

export type TaskRefusal = {
  ok: false;
  code: string;
  /** The person-facing line. */
  error: string;
  /** Body field (first pointer segment: `title`, `write_scope` …) → what is wrong. */
  fields: Record<string, string>;
  /** On an edit's `revision_conflict`: the task as it now is. */
  current?: Task;
  unmet?: string[];
  overlaps?: Overlap[];
};

function refusal(e: unknown, verb: string): TaskRefusal {
  const error = failureLine(e, "Could not reach Chips; nothing was changed.", (s) => `Could not ${verb} (${s}).`);
  if (!(e instanceof ApiError)) return { ok: false, code: "unreachable", error, fields: {} };
  const fields: Record<string, string> = {};
  for (const f of e.errors) {
    const [, name, index] = f.pointer.split("/");
    if (name && !fields[name])
      fields[name] = index === undefined ? f.message : `line ${Number(index) + 1}: ${f.message}`;
  }
  const p = e.problem;
  return {
    ok: false,
    code: e.code,
    error,
    fields,
    ...(p.current && typeof p.current === "object" ? { current: p.current as Task } : {}),
    ...(Array.isArray(p.unmet) ? { unmet: p.unmet as string[] } : {}),
    ...(Array.isArray(p.overlaps) ? { overlaps: p.overlaps as Overlap[] } : {}),
  };
}

/** Make a task (`taskId` null) or save an edit of one. */
export async function saveTask(
  spaceId: string,
  taskId: string | null,
  draft: TaskDraft,
): Promise<{ ok: true; task_id: string } | TaskRefusal> {
  const body = { ...draft, idempotency_key: `task_${ulid()}` };
  try {
    const saved = taskId
      ? await call(ROUTES.editTask, { params: { space: spaceId, task: taskId }, body })
      : await call(ROUTES.makeTask, { params: { space: spaceId }, body });
    // The answer is the stored task.saved.
    if (saved.type !== "task.saved") throw new ApiError(500, null);
    return { ok: true, task_id: saved.task_id };
  } catch (e) {
    return refusal(e, "save the task");
  }
}

/** Start a task ([TSK3]); with `overrideOverlap` the person has confirmed an overlapping write scope ([TSK4]). */
export async function startTask(
  spaceId: string,
  taskId: string,
  overrideOverlap = false,
): Promise<{ ok: true; run_id: string } | TaskRefusal> {
  try {
    const r = await call(ROUTES.startTask, {
      params: { space: spaceId, task: taskId },
      body: { ...(overrideOverlap ? { override_overlap: true } : {}), idempotency_key: `start_${ulid()}` },
    });
    return { ok: true, run_id: r.run_id };
  } catch (e) {
    return refusal(e, "start the task");
  }
}
