"use client";

import { useMemo, useState } from "react";
import Link from "next/link";
import type { Run, TaskStatus, TaskView } from "@/lib/core/protocol";
import { taskViews, type Tasks } from "@/lib/core/projection/tasks";
import { startTask, taskProblem } from "@/lib/browser/task-api";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { useAction } from "../ui/use-action";
import { ListSection } from "./list-section";
import { TaskForm } from "./task-form";

const GROUPS: { status: TaskStatus; label: string; badge: string }[] = [
  { status: "ready", label: "Ready", badge: "bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-200" },
  {
    status: "waiting",
    label: "Waiting for prerequisites",
    badge: "bg-zinc-100 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  },
  { status: "running", label: "Running", badge: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200" },
  { status: "failed", label: "Failed", badge: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200" },
  { status: "done", label: "Done", badge: "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-200" },
];

/**
 * The room's task board ([TSK1]–[TSK4], docs/ROOM-STATE.md): the tasks the room's state folded
 * with the server's own projection, grouped by where they stand (`taskViews`, [TSK2]), a form to
 * make or edit one, and Start on each. A refused start says why beside its task; an overlapping
 * write scope asks the person to confirm, and a confirmed start records the override.
 */
export function TaskBoard({
  workspaceId,
  spaceId,
  tasks,
  runs,
  canEdit = true,
}: {
  workspaceId: string;
  spaceId: string;
  tasks: Tasks;
  runs: Run[];
  canEdit?: boolean;
}) {
  const views = useMemo(() => taskViews(tasks, runs), [tasks, runs]);
  const [form, setForm] = useState<{ task?: TaskView } | null>(null);
  const titles = Object.fromEntries(views.map((t) => [t.task_id, t.title]));
  return (
    <ListSection
      label="Tasks"
      testId="task-board"
      count={views.length}
      add={canEdit ? { label: "New task", testId: "task-new", onClick: () => setForm({}) } : undefined}
      form={
        form && (
          <TaskForm
            key={form.task?.task_id ?? "new"}
            spaceId={spaceId}
            task={form.task ? tasks[form.task.task_id] : undefined}
            others={views.filter((t) => t.task_id !== form.task?.task_id)}
            onDone={() => setForm(null)}
          />
        )
      }
      empty="No tasks yet."
    >
      {GROUPS.map((g) => {
        const inGroup = views.filter((t) => t.status === g.status);
        if (!inGroup.length) return null;
        return (
          <div key={g.status} data-testid={`task-group-${g.status}`}>
            <h4 className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
              {g.label} ({inGroup.length})
            </h4>
            <ul className="mt-1 space-y-2">
              {inGroup.map((t) => (
                <TaskItem
                  key={t.task_id}
                  t={t}
                  badge={g.badge}
                  titles={titles}
                  workspaceId={workspaceId}
                  spaceId={spaceId}
                  onEdit={canEdit ? () => setForm({ task: t }) : undefined}
                />
              ))}
            </ul>
          </div>
        );
      })}
    </ListSection>
  );
}

function TaskItem({
  t,
  badge,
  titles,
  workspaceId,
  spaceId,
  onEdit,
}: {
  t: TaskView;
  badge: string;
  titles: Record<string, string>;
  workspaceId: string;
  spaceId: string;
  onEdit?: () => void;
}) {
  const start = useAction((override: boolean) => startTask(spaceId, t.task_id, override), {
    fields: ["repository"],
    unreachable: "Could not reach Chips; nothing was changed.",
    refused: (s) => `Could not start the task (${s}).`,
  });
  const { unmet, overlaps } = taskProblem(start.refusal);
  const error =
    start.refusal?.code === "scope_overlap" && overlaps
      ? null
      : start.refusal?.code === "prerequisites_unmet" && unmet
        ? `Cannot start yet: ${unmet.map((id) => titles[id] ?? id).join(", ")} must succeed first.`
        : start.fields.repository
          ? `Repository: ${start.fields.repository} — edit the task to name one.`
          : start.error;
  const errorId = `task-start-error-${t.task_id}`;
  return (
    <li
      data-testid="task"
      data-task-id={t.task_id}
      data-status={t.status}
      className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
    >
      <div className="flex items-start gap-2">
        <p className="min-w-0 flex-1 text-sm font-medium" data-testid="task-title">
          {t.title}
        </p>
        <span data-testid="task-status" className={`shrink-0 rounded-full px-2 py-0.5 text-xs ${badge}`}>
          {t.status}
        </span>
      </div>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        prompt v{t.prompt_version} · scope <code className="font-mono">{t.write_scope.join(", ")}</code>
        {t.prerequisites.length > 0 && ` · after ${t.prerequisites.map((p) => titles[p] ?? p).join(", ")}`}
        {t.auto_start && " · starts by itself"}
        {t.run_id && (
          <>
            {" · "}
            <Link
              data-testid="task-run"
              href={`/w/${workspaceId}/runs/${t.run_id}`}
              className="text-blue-700 underline dark:text-blue-300"
            >
              newest run
            </Link>
          </>
        )}
      </p>
      {onEdit && (
        <div className="mt-1 flex gap-2">
          <Button size="xs" data-testid="task-edit" onClick={onEdit}>
            Edit
          </Button>
          {t.status !== "running" && (
            <Button
              tone="primary"
              size="xs"
              data-testid="task-start"
              busy={start.busy}
              aria-describedby={error ? errorId : undefined}
              onClick={() => start.run(false)}
            >
              {t.run_id ? "Run again" : "Start"}
            </Button>
          )}
        </div>
      )}
      <Alert id={errorId} testId="task-start-error" className="mt-1 text-sm">
        {error}
      </Alert>
      {start.refusal?.code === "scope_overlap" && overlaps && (
        <div
          role="alertdialog"
          aria-label="Overlapping write scope"
          data-testid="task-overlap"
          className="mt-1 rounded-md border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-700 dark:bg-amber-950"
        >
          <p>
            Its write scope overlaps {overlaps.length === 1 ? "a running task" : "running tasks"}:{" "}
            {overlaps.map((o) => `${o.title} (${o.write_scope.join(", ")})`).join("; ")}. Start anyway? The override is
            recorded with the run.
          </p>
          <div className="mt-1 flex gap-2">
            <Button
              tone="warning"
              size="xs"
              data-testid="task-start-anyway"
              busy={start.busy}
              onClick={() => start.run(true)}
            >
              Start anyway
            </Button>
            <Button size="xs" onClick={start.reset}>
              Cancel
            </Button>
          </div>
        </div>
      )}
    </li>
  );
}
