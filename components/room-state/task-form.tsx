"use client";

import { useState, type ReactNode } from "react";
import type { Task } from "@/lib/core/protocol";
import { saveTask, type TaskRefusal } from "@/lib/browser/task-api";

const field =
  "w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900";
export const button =
  "rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-60";
export const quiet = `${button} border border-zinc-300 hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800`;

/** A field's refusal, beside it, named for screen readers by `id`. */
function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <span
      id={id}
      data-testid={id}
      role="alert"
      className="mt-0.5 block text-xs font-normal text-red-700 dark:text-red-400"
    >
      {message}
    </span>
  );
}

function Labelled({
  label,
  hint,
  error,
  name,
  children,
}: {
  label: string;
  hint?: string;
  error?: string;
  name: string;
  children: ReactNode;
}) {
  return (
    <div>
      <label className="block text-sm font-medium">
        {label}
        {hint && <span className="font-normal text-zinc-600 dark:text-zinc-400"> ({hint})</span>}
        {children}
      </label>
      <FieldError id={`task-error-${name}`} message={error} />
    </div>
  );
}

/**
 * Make or edit a task ([TSK1]): title, prompt, write scope (globs, one per line), prerequisites
 * picked from the room's other tasks, auto-start and the repository its runs default to. A
 * refusal shows beside its field; an edit on a stale prompt version shows the prompt as it now is
 * and saves on top of it next time.
 */
export function TaskForm({
  spaceId,
  task,
  others,
  onDone,
}: {
  spaceId: string;
  task?: Task;
  others: Task[];
  onDone: () => void;
}) {
  const [title, setTitle] = useState(task?.title ?? "");
  const [prompt, setPrompt] = useState(task?.prompt ?? "");
  const [scope, setScope] = useState((task?.write_scope ?? ["**"]).join("\n"));
  const [prereqs, setPrereqs] = useState<string[]>(task?.prerequisites ?? []);
  const [autoStart, setAutoStart] = useState(task?.auto_start ?? false);
  const [repository, setRepository] = useState(task?.repository ?? "");
  const [base, setBase] = useState(task?.prompt_version);
  const [refused, setRefused] = useState<TaskRefusal | null>(null);
  const [busy, setBusy] = useState(false);
  const err = refused?.fields ?? {};
  const described = (name: string) =>
    err[name] ? { "aria-invalid": true, "aria-describedby": `task-error-${name}` } : {};

  return (
    <form
      data-testid="task-form"
      aria-label={task ? `Edit task ${task.title}` : "New task"}
      className="space-y-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy) return;
        setBusy(true);
        const write_scope = scope
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean);
        const r = await saveTask(spaceId, task?.task_id ?? null, {
          title: title.trim(),
          prompt,
          write_scope,
          prerequisites: prereqs,
          auto_start: autoStart,
          ...(repository.trim() ? { repository: repository.trim() } : {}),
          ...(base ? { prompt_version: base } : {}),
        });
        setBusy(false);
        if (r.ok) return onDone();
        setRefused(r);
        // Saved again, the edit goes on top of the version the other person made.
        if (r.current) setBase(r.current.prompt_version);
      }}
    >
      <Labelled label="Title" name="title" error={err.title}>
        <input
          data-testid="task-title-input"
          className={field}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          required
          {...described("title")}
        />
      </Labelled>
      <Labelled
        label="Prompt"
        hint={task ? `now version ${task.prompt_version}` : "what the agent is asked"}
        name="prompt"
        error={err.prompt}
      >
        <textarea
          data-testid="task-prompt-input"
          className={`${field} min-h-20`}
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          required
          {...described("prompt")}
        />
      </Labelled>
      <Labelled label="Write scope" hint="path globs, one per line" name="write_scope" error={err.write_scope}>
        <textarea
          data-testid="task-scope-input"
          className={`${field} min-h-12 font-mono`}
          value={scope}
          onChange={(e) => setScope(e.target.value)}
          {...described("write_scope")}
        />
      </Labelled>
      <fieldset className="text-sm" {...(err.prerequisites ? { "aria-describedby": "task-error-prerequisites" } : {})}>
        <legend className="font-medium">Prerequisites</legend>
        {others.length === 0 && <p className="text-zinc-600 dark:text-zinc-400">No other tasks in this room.</p>}
        {others.map((o) => (
          <label key={o.task_id} className="flex items-center gap-2">
            <input
              type="checkbox"
              data-testid="task-prereq"
              data-task-id={o.task_id}
              checked={prereqs.includes(o.task_id)}
              onChange={(e) =>
                setPrereqs(e.target.checked ? [...prereqs, o.task_id] : prereqs.filter((p) => p !== o.task_id))
              }
            />
            {o.title}
          </label>
        ))}
        <FieldError id="task-error-prerequisites" message={err.prerequisites} />
      </fieldset>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          data-testid="task-auto-start"
          checked={autoStart}
          onChange={(e) => setAutoStart(e.target.checked)}
        />
        Start by itself when its prerequisites succeed
      </label>
      <Labelled label="Repository" hint="its runs' default" name="repository" error={err.repository}>
        <input
          data-testid="task-repository-input"
          className={field}
          value={repository}
          onChange={(e) => setRepository(e.target.value)}
          {...described("repository")}
        />
      </Labelled>
      {refused?.current && (
        <div
          data-testid="task-conflict"
          role="alert"
          className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-700 dark:bg-amber-950"
        >
          <p>Someone saved this task meanwhile (prompt version {refused.current.prompt_version}). Their prompt:</p>
          <pre className="mt-1 text-xs whitespace-pre-wrap">{refused.current.prompt}</pre>
          <p className="mt-1">Your text is kept above; saving again saves it on top of theirs.</p>
        </div>
      )}
      {refused && !refused.current && Object.keys(refused.fields).length === 0 && (
        <p role="alert" data-testid="task-form-error" className="text-sm text-red-700 dark:text-red-400">
          {refused.error}
        </p>
      )}
      <div className="flex gap-2">
        <button
          type="submit"
          data-testid="task-save"
          disabled={busy}
          className={`${button} bg-blue-700 text-white hover:bg-blue-800`}
        >
          {task ? "Save task" : "Create task"}
        </button>
        <button type="button" onClick={onDone} className={quiet}>
          Cancel
        </button>
      </div>
    </form>
  );
}
