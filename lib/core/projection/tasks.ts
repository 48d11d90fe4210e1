import type { Run, StoredEvent, Task, TaskStatus, TaskView } from "@/lib/core/protocol";

/** A room's tasks by id. */
export type Tasks = Record<string, Task>;

/**
 * How a `task.saved` changes a room's tasks ([TSK1]): the task becomes what the save says; its
 * prompt version is 1 when made and grows by one on every save that changes the prompt — the
 * fold decides it, so two people editing at once still get distinct, gap-free versions. Pure:
 * the server's task reads, the browser's room and a replay of the log all call it.
 */
export function foldTasks(tasks: Tasks, e: StoredEvent): Tasks {
  if (e.type !== "task.saved") return tasks;
  const known = tasks[e.task_id];
  if (known && e.seq <= known.seq) return tasks; // already folded (a page read after the event)
  const version = !known ? 1 : known.prompt === e.prompt ? known.prompt_version : known.prompt_version + 1;
  const task: Task = {
    workspace_id: e.workspace_id,
    space_id: e.space_id!,
    task_id: e.task_id,
    title: e.title,
    prompt: e.prompt,
    prompt_version: version,
    write_scope: e.write_scope,
    prerequisites: e.prerequisites,
    auto_start: e.auto_start ?? false,
    repository: e.repository ?? null,
    base_branch: e.base_branch ?? null,
    agent: e.agent ?? null,
    profile: e.profile ?? null,
    model: e.model ?? null,
    provider: e.provider ?? null,
    instructions: e.instructions ?? "",
    actor: e.actor,
    ts: e.ts,
    seq: e.seq,
    created_seq: known?.created_seq ?? e.seq,
  };
  return { ...tasks, [e.task_id]: task };
}

/** A task's runs' newest (by the seq that queued it): what its status follows. */
function newestRuns(runs: Iterable<Run>): Map<string, Run> {
  const out = new Map<string, Run>();
  for (const r of runs) {
    const id = r.request?.task?.task_id;
    if (!id) continue;
    const prev = out.get(id);
    if (!prev || r.created_at > prev.created_at || (r.created_at === prev.created_at && r.id > prev.id)) out.set(id, r);
  }
  return out;
}

const runStatus = (r: Run): TaskStatus =>
  r.state !== "finished" ? "running" : r.outcome === "succeeded" ? "done" : "failed";

/**
 * Where each task stands ([TSK2]): its newest run decides — running (queued, running or
 * paused), done (succeeded), failed (failed or cancelled); a task never run is ready when every
 * prerequisite is done, else waiting. Oldest task first.
 */
export function taskViews(tasks: Tasks, runs: Iterable<Run>): TaskView[] {
  const newest = newestRuns(runs);
  const status = (t: Task): TaskStatus => {
    const r = newest.get(t.task_id);
    if (r) return runStatus(r);
    return unmet(t, newest).length ? "waiting" : "ready";
  };
  return Object.values(tasks)
    .sort((a, b) => a.created_seq - b.created_seq)
    .map((t) => ({ ...t, status: status(t), run_id: newest.get(t.task_id)?.id ?? null }));
}

/** The prerequisites of a task whose newest run has not succeeded ([TSK3]'s `prerequisites_unmet`). */
export const unmetPrerequisites = (t: Task, runs: Iterable<Run>): string[] => unmet(t, newestRuns(runs));

function unmet(t: Task, newest: Map<string, Run>): string[] {
  return t.prerequisites.filter((p) => {
    const r = newest.get(p);
    return !r || runStatus(r) !== "done";
  });
}
