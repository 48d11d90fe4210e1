import { taskViews } from "@/lib/core/projection/tasks";
import type { Committed } from "../ingest/writer";
import { log } from "../log";
import { getRun } from "@/lib/server/queries/runs";
import type { ChipsServices } from "../services";
import { roomTasks, taskRuns } from "@/lib/server/queries/tasks";
import { startTask } from "./start";

/**
 * [TSK4] A task set to `auto_start` starts by itself when its prerequisites have succeeded: on
 * each commit (on the node that committed it) a task run that finished `succeeded` is looked
 * up, and every ready auto-start task of its room that names it as a prerequisite is started,
 * as the person who last saved it. The idempotency key names the task and the run that freed
 * it, so a repeat of this never queues a second run.
 */
export function autoStarter(svc: Pick<ChipsServices, "database" | "db" | "storage" | "writer">) {
  return (workspaceId: string, batch: Committed[]) => {
    const freed = batch
      .filter((c) => c.event.type === "run.finished" && c.event.outcome === "succeeded")
      .map((c) => c.event.run_id!);
    if (freed.length)
      void startFreed(svc, workspaceId, freed).catch((e) => svc.storage.refuse(e, "auto-starting tasks"));
  };
}

async function startFreed(
  svc: Pick<ChipsServices, "database" | "db" | "writer">,
  workspaceId: string,
  runIds: string[],
) {
  for (const runId of runIds) {
    const run = await getRun(svc.db, runId);
    const done = run?.request?.task?.task_id;
    if (!run || !done) continue;
    const [tasks, runs] = await Promise.all([
      roomTasks(svc.db, workspaceId, run.space_id),
      taskRuns(svc.db, workspaceId, run.space_id),
    ]);
    for (const t of taskViews(tasks, runs)) {
      if (!t.auto_start || t.status !== "ready" || !t.prerequisites.includes(done) || t.actor.kind !== "person")
        continue;
      const by = { kind: "person" as const, workspaceId, subjectId: t.actor.id, role: "member" as const };
      const r = await startTask(svc, by, { id: run.space_id, workspaceId }, t.task_id, {
        required_commands: [],
        override_overlap: false,
        idempotency_key: `auto:${t.task_id}:${runId}`,
      });
      if (!r.ok) log.info({ taskId: t.task_id, problem: r.problem.code }, "an auto-start task did not start");
    }
  }
}
