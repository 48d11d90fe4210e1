"use client";

import { useState } from "react";
import type { Task } from "@/lib/core/protocol";
import { saveTask, taskProblem, type TaskDraft } from "@/lib/browser/task-api";
import { Alert } from "../ui/alert";
import { Field, Input, TextArea, useFieldGroup } from "../ui/field";
import { Form, SubmitOrCancel } from "../ui/form";
import { useAction } from "../ui/use-action";

const lines = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

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
  const save = useAction((draft: TaskDraft) => saveTask(spaceId, task?.task_id ?? null, draft), {
    fields: ["title", "prompt", "write_scope", "prerequisites", "repository"],
    unreachable: "Could not reach Chips; nothing was changed.",
    refused: (s) => `Could not save the task (${s}).`,
    onDone,
  });
  const current = taskProblem(save.refusal).current;

  return (
    <Form
      action={save}
      data-testid="task-form"
      aria-label={task ? `Edit task ${task.title}` : "New task"}
      className="space-y-2 rounded-md border border-zinc-200 p-2 dark:border-zinc-800"
      onSubmit={() => {
        // Saved again after a conflict, the edit goes on top of the version the other person made.
        const on = current?.prompt_version ?? base;
        setBase(on);
        return save.run({
          title: title.trim(),
          prompt,
          write_scope: lines(scope),
          prerequisites: prereqs,
          auto_start: autoStart,
          ...(repository.trim() ? { repository: repository.trim() } : {}),
          ...(on ? { prompt_version: on } : {}),
        });
      }}
    >
      <Field label="Title" error={save.fields.title} name="title">
        <Input data-testid="task-title-input" value={title} onChange={(e) => setTitle(e.target.value)} required />
      </Field>
      <Field
        label="Prompt"
        note={task ? `now version ${task.prompt_version}` : "what the agent is asked"}
        error={save.fields.prompt}
        name="prompt"
      >
        <TextArea
          data-testid="task-prompt-input"
          className="min-h-20"
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          required
        />
      </Field>
      <Field label="Write scope" note="path globs, one per line" error={save.fields.write_scope} name="write_scope">
        <TextArea
          data-testid="task-scope-input"
          className="min-h-12 font-mono"
          value={scope}
          onChange={(e) => setScope(e.target.value)}
        />
      </Field>
      <Field label="Prerequisites" group error={save.fields.prerequisites} name="prerequisites">
        <Prerequisites others={others} chosen={prereqs} set={setPrereqs} />
      </Field>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          data-testid="task-auto-start"
          checked={autoStart}
          onChange={(e) => setAutoStart(e.target.checked)}
        />
        Start by itself when its prerequisites succeed
      </label>
      <Field label="Repository" note="its runs' default" error={save.fields.repository} name="repository">
        <Input data-testid="task-repository-input" value={repository} onChange={(e) => setRepository(e.target.value)} />
      </Field>
      {current && (
        <div
          data-testid="task-conflict"
          role="alert"
          className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm dark:border-amber-700 dark:bg-amber-950"
        >
          <p>Someone saved this task meanwhile (prompt version {current.prompt_version}). Their prompt:</p>
          <pre className="mt-1 text-xs whitespace-pre-wrap">{current.prompt}</pre>
          <p className="mt-1">Your text is kept above; saving again saves it on top of theirs.</p>
        </div>
      )}
      <Alert testId="task-form-error">{!current && save.error}</Alert>
      <SubmitOrCancel testId="task-save" busy={save.busy} onCancel={onDone}>
        {task ? "Save task" : "Create task"}
      </SubmitOrCancel>
    </Form>
  );
}

/** The room's other tasks as checkboxes: the ones this task waits for. */
function Prerequisites({ others, chosen, set }: { others: Task[]; chosen: string[]; set: (ids: string[]) => void }) {
  return (
    <div {...useFieldGroup()} tabIndex={-1} className="text-sm">
      {others.length === 0 && <p className="text-zinc-600 dark:text-zinc-400">No other tasks in this room.</p>}
      {others.map((o) => (
        <label key={o.task_id} className="flex items-center gap-2">
          <input
            type="checkbox"
            data-testid="task-prereq"
            data-task-id={o.task_id}
            checked={chosen.includes(o.task_id)}
            onChange={(e) => set(e.target.checked ? [...chosen, o.task_id] : chosen.filter((p) => p !== o.task_id))}
          />
          {o.title}
        </label>
      ))}
    </div>
  );
}
