import {
  clipUtf8,
  LIMITS,
  problem,
  scopesOverlap,
  type ProblemError,
  type StartTaskBody,
  type Task,
  type TaskSnapshot,
} from "@/lib/core/protocol";
import { PermissionProfile } from "@/lib/core/protocol/runner-contract";
import { taskViews, unmetPrerequisites } from "@/lib/core/projection/tasks";
import type { Credential } from "../credentials";
import { getRoom, listDecisions } from "@/lib/server/queries/rooms";
import { startRun, type StartRunAnswer } from "../dispatch/start-run";
import type { ChipsServices } from "../services";
import { roomTasks, storedByKey, taskRuns } from "@/lib/server/queries/tasks";
import { oneStartAtATime } from "./one-at-a-time";

const refuse = (p: ProblemError, extensions: Record<string, unknown>): StartRunAnswer => ({
  ok: false,
  problem: { ...p, extensions },
});
/** A run's goal is a line of the room ([LIM1]); the start request carries the whole prompt. */
const goalOf = (t: Task) => clipUtf8(t.prompt, LIMITS.goal);

/**
 * A person starts a task ([TSK3], [TSK4]): refused `409 prerequisites_unmet` while a
 * prerequisite's newest run has not succeeded, and `409 scope_overlap` while its write scope
 * overlaps a running task's — unless the person confirms (`override_overlap`), which the run
 * records. The run is queued with the snapshot its start request freezes: the room's revision,
 * intent and outcome, its active decisions, the task's write scope, prerequisites and prompt
 * version as they are now. A retry with the same key answers the run the first queued.
 * The checks and the queueing are one step: starts in a room are judged one at a time.
 */
export function startTask(
  svc: Pick<ChipsServices, "database" | "db" | "writer">,
  cred: Credential,
  space: { id: string; workspaceId: string },
  taskId: string,
  body: StartTaskBody,
): Promise<StartRunAnswer> {
  return oneStartAtATime(svc, space.id, async () => {
    const replay = (await storedByKey(svc.db, space.workspaceId, body.idempotency_key)) !== null;
    const [tasks, runs] = await Promise.all([
      roomTasks(svc.db, space.workspaceId, space.id),
      taskRuns(svc.db, space.workspaceId, space.id),
    ]);
    const task = tasks[taskId];
    if (!task) return { ok: false, problem: problem("task_not_found", "no such task in this room") };
    const repository = body.repository ?? task.repository;
    if (!repository)
      return {
        ok: false,
        problem: problem("validation_failed", "the task names no repository: say which", [
          { pointer: "/repository", message: "required" },
        ]),
      };
    let override: TaskSnapshot["override"];
    if (!replay) {
      const unmet = unmetPrerequisites(task, runs);
      if (unmet.length)
        return refuse(
          problem("prerequisites_unmet", `prerequisites not yet succeeded: ${unmet.join(", ")}`, [
            { pointer: "/task", message: "prerequisites unmet" },
          ]),
          { unmet },
        );
      const overlaps = taskViews(tasks, runs).filter(
        (t) => t.status === "running" && t.task_id !== taskId && scopesOverlap(t.write_scope, task.write_scope),
      );
      if (overlaps.length && !body.override_overlap) {
        const detail = `the write scope overlaps running tasks: ${overlaps.map((t) => t.title).join(", ")}`;
        return refuse(
          problem("scope_overlap", detail, [{ pointer: "/override_overlap", message: "confirm to start anyway" }]),
          {
            overlaps: overlaps.map((t) => ({
              task_id: t.task_id,
              title: t.title,
              run_id: t.run_id,
              write_scope: t.write_scope,
            })),
          },
        );
      }
      if (overlaps.length) override = { overlaps: overlaps.map((t) => t.task_id), by: cred.subjectId };
    }
    const [room, decisions] = await Promise.all([
      getRoom(svc.db, space.workspaceId, space.id),
      listDecisions(svc.db, space.workspaceId, space.id),
    ]);
    const snapshot: TaskSnapshot = {
      task_id: task.task_id,
      room: { revision: room.revision, intent: room.intent, outcome: room.outcome },
      decisions: decisions
        .filter((d) => d.status === "active")
        .map(({ decision_id, title, text }) => ({ decision_id, title, text })),
      write_scope: task.write_scope,
      prerequisites: task.prerequisites,
      prompt: { text: task.prompt, version: task.prompt_version },
      ...(override ? { override } : {}),
    };
    return startRun(
      svc,
      cred,
      {
        space_id: space.id,
        prompt: goalOf(task),
        repository,
        base_branch: body.base_branch ?? task.base_branch ?? "main",
        agent: body.agent ?? (task.agent === "claude" ? "claude" : "codex"),
        profile: body.profile ?? PermissionProfile.catch("workspace-write").parse(task.profile ?? undefined),
        required_commands: body.required_commands,
        secrets: [],
        // [RN5] the start's own choice, else the task's default.
        ...((body.model ?? task.model) ? { model: body.model ?? task.model! } : {}),
        ...((body.provider ?? task.provider) ? { provider: body.provider ?? task.provider! } : {}),
        ...((body.instructions ?? task.instructions) ? { instructions: body.instructions ?? task.instructions } : {}),
        idempotency_key: body.idempotency_key,
      },
      snapshot,
    );
  });
}
