import type { TaskSnapshot } from "@/lib/core/protocol";
import { Markdown } from "../ui/markdown";

const dt = "text-xs font-medium text-zinc-600 dark:text-zinc-400";

/**
 * What a task's run was started with ([TSK3]): the room's revision, intent and outcome, the
 * active decisions, the write scope, prerequisites and prompt version frozen at the start —
 * exactly what the runner's start request carries, however the room has changed since — and,
 * when the person started it over a running task's overlapping scope, the override ([TSK4]).
 */
export function TaskSnapshotView({ task, personName }: { task: TaskSnapshot; personName: (id: string) => string }) {
  return (
    <section
      aria-labelledby="task-snapshot"
      data-testid="run-task-snapshot"
      data-task-id={task.task_id}
      className="mt-8"
    >
      <h2
        id="task-snapshot"
        className="mb-2 text-sm font-semibold tracking-wide text-zinc-700 uppercase dark:text-zinc-300"
      >
        Task snapshot
      </h2>
      <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-2">
        <div>
          <dt className={dt}>Room revision</dt>
          <dd data-testid="run-task-revision">r{task.room.revision}</dd>
        </div>
        <div>
          <dt className={dt}>Prompt version</dt>
          <dd data-testid="run-task-prompt-version">v{task.prompt.version}</dd>
        </div>
        {(
          [
            ["intent", "Intent"],
            ["outcome", "Outcome"],
          ] as const
        ).map(([f, label]) => (
          <div key={f}>
            <dt className={dt}>{label}</dt>
            <dd data-testid={`run-task-${f}`}>
              {task.room[f] ? (
                <Markdown text={task.room[f]} />
              ) : (
                <span className="text-zinc-600 dark:text-zinc-400">none</span>
              )}
            </dd>
          </div>
        ))}
        <div>
          <dt className={dt}>Write scope</dt>
          <dd data-testid="run-task-scope" className="font-mono text-xs">
            {task.write_scope.join("\n")}
          </dd>
        </div>
        <div>
          <dt className={dt}>Prerequisites</dt>
          <dd data-testid="run-task-prerequisites">
            {task.prerequisites.length ? task.prerequisites.join(", ") : "none"}
          </dd>
        </div>
        <div className="sm:col-span-2">
          <dt className={dt}>Active decisions ({task.decisions.length})</dt>
          <dd>
            <ul data-testid="run-task-decisions" className="list-disc pl-5">
              {task.decisions.map((d) => (
                <li key={d.decision_id}>
                  <span className="font-medium">{d.title}</span>: {d.text}
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div className="sm:col-span-2">
          <dt className={dt}>Prompt</dt>
          <dd>
            <pre data-testid="run-task-prompt" className="text-xs whitespace-pre-wrap">
              {task.prompt.text}
            </pre>
          </dd>
        </div>
        {task.override && (
          <div className="sm:col-span-2">
            <dt className={dt}>Override</dt>
            <dd data-testid="run-task-override" className="text-amber-800 dark:text-amber-300">
              Started by {personName(task.override.by)} although its write scope overlapped running tasks:{" "}
              {task.override.overlaps.join(", ")}
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}
