"use client";

import { useId, useRef, useState } from "react";
import { ulid } from "ulid";
import { ApiError, onlineRunners, startRun, type OnlineRunner } from "@/lib/browser/api";
import { hint, input, label, ModelChoice, OptionalField, ProfileChoice } from "./start-run-fields";
import { AgentName, PermissionProfile } from "@/lib/core/protocol/runner-contract";

type Field =
  | "prompt"
  | "repository"
  | "base"
  | "agent"
  | "model"
  | "provider"
  | "profile"
  | "instructions"
  | "commands"
  | "secrets";

/** A problem's JSON pointer → the field at fault. */
const POINTER: Record<string, Field> = {
  prompt: "prompt",
  repository: "repository",
  base_branch: "base",
  agent: "agent",
  model: "model",
  provider: "provider",
  profile: "profile",
  instructions: "instructions",
  required_commands: "commands",
  secrets: "secrets",
};

const button =
  "rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:opacity-60";

const lines = (s: string) =>
  s
    .split("\n")
    .map((x) => x.trim())
    .filter(Boolean);
const names = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * "Start a run" (§5): a dialog whose form posts `POST /api/v1/runs` with the session
 * cookie. A problem's detail shows next to the field its pointer names. A retry of the
 * same request reuses its idempotency key, so a lost answer never starts a run twice.
 */
export function StartRun({
  spaceId,
  workspaceId,
  onStarted,
}: {
  spaceId: string;
  workspaceId?: string;
  onStarted?: (runId: string) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const last = useRef<{ body: string; key: string } | null>(null);
  const id = useId();
  const [prompt, setPrompt] = useState("");
  const [repository, setRepository] = useState("");
  const [base, setBase] = useState("main");
  const [agent, setAgent] = useState<AgentName>("codex");
  const [profile, setProfile] = useState<PermissionProfile>("workspace-write");
  const [model, setModel] = useState("");
  const [provider, setProvider] = useState("");
  const [instructions, setInstructions] = useState("");
  const [commands, setCommands] = useState("");
  const [secrets, setSecrets] = useState("");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [online, setOnline] = useState<OnlineRunner[] | null>(null);

  /** Who could take the run now: their repositories are offered, and an empty list said plainly. */
  async function loadRunners() {
    if (!workspaceId) return;
    setOnline(await onlineRunners(workspaceId).catch(() => null));
  }

  const fid = (f: Field) => `${id}-${f}`;
  const described = (f: Field, ...more: string[]) =>
    [...more, errors[f] ? `${fid(f)}-error` : ""].filter(Boolean).join(" ") || undefined;
  const fieldError = (f: Field) =>
    errors[f] ? (
      <p
        id={`${fid(f)}-error`}
        data-testid="start-run-error"
        data-field={f}
        className="mt-1 text-xs text-red-700 dark:text-red-400"
      >
        {errors[f]}
      </p>
    ) : null;

  /** What a field component needs of the form: its id, its error and what describes it. */
  const optional = (f: Field) => ({
    id: fid(f),
    invalid: !!errors[f],
    describedBy: described(f),
    error: fieldError(f),
  });

  async function submit() {
    const request = {
      space_id: spaceId,
      prompt: prompt.trim(),
      repository: repository.trim(),
      base_branch: base.trim() || "main",
      agent,
      profile,
      ...(model ? { model } : {}),
      ...(provider ? { provider } : {}),
      ...(instructions.trim() ? { instructions: instructions.trim() } : {}),
      required_commands: lines(commands),
      secrets: names(secrets),
    };
    const body = JSON.stringify(request);
    const key = last.current?.body === body ? last.current.key : `start_${ulid()}`;
    last.current = { body, key };
    setBusy(true);
    setErrors({});
    setGeneral(null);
    let refused: ApiError;
    try {
      const answer = await startRun({ ...request, idempotency_key: key });
      setBusy(false);
      last.current = null;
      setPrompt("");
      setInstructions("");
      dialog.current?.close();
      if (answer?.run_id) onStarted?.(answer.run_id);
      return;
    } catch (e) {
      setBusy(false);
      refused = e instanceof ApiError ? e : new ApiError(0, null);
    }
    if (refused.unreachable)
      return setGeneral("Could not reach Chips. Try again: the same request will not start a second run.");
    const detail = refused.detail ?? `Refused (${refused.status}).`;
    const found: Partial<Record<Field, string>> = {};
    for (const e of refused.errors) {
      const field = POINTER[e.pointer.split("/")[1] ?? ""];
      if (field && !found[field]) found[field] = e.message || detail;
    }
    if (Object.keys(found).length) {
      setErrors(found);
      const first = (Object.keys(POINTER) as string[]).map((k) => POINTER[k]).find((f) => found[f]);
      if (first) form.current?.querySelector<HTMLElement>(`#${CSS.escape(fid(first))}`)?.focus();
      if (refused.fields.length < refused.errors.length || refused.fields.some((f) => !POINTER[f])) setGeneral(detail);
    } else setGeneral(detail);
  }

  return (
    <>
      <button
        type="button"
        data-testid="start-run-open"
        aria-haspopup="dialog"
        onClick={() => {
          dialog.current?.showModal();
          void loadRunners();
          form.current?.querySelector<HTMLElement>(`#${CSS.escape(fid("prompt"))}`)?.focus();
        }}
        className="rounded-md border border-zinc-300 bg-white px-2.5 py-1 text-xs font-medium text-zinc-800 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
      >
        Start a run
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
      >
        <form
          ref={form}
          data-testid="start-run-form"
          className="max-h-[85dvh] space-y-3 overflow-y-auto p-4"
          onSubmit={(e) => {
            e.preventDefault();
            if (!busy) void submit();
          }}
        >
          <h2 id={`${id}-title`} className="text-base font-semibold">
            Start a run
          </h2>
          {online && (
            <p data-testid="start-run-runners" className={hint}>
              {online.length
                ? `Connected: ${online.map((r) => `${r.name} (${r.adapters.map((a) => a.agent).join(", ") || "no agents"}: ${r.repositories.join(", ")})`).join("; ")}`
                : "No runner is connected now: the run will wait until one that has its repository dials in."}
            </p>
          )}
          <div>
            <label htmlFor={fid("prompt")} className={label}>
              Prompt
            </label>
            <textarea
              id={fid("prompt")}
              data-testid="start-run-prompt"
              required
              rows={4}
              value={prompt}
              onChange={(e) => setPrompt(e.target.value)}
              aria-invalid={!!errors.prompt}
              aria-describedby={described("prompt", `${fid("prompt")}-hint`)}
              className={input}
            />
            <p id={`${fid("prompt")}-hint`} className={hint}>
              Posted in this room as your message; the agent works from it.
            </p>
            {fieldError("prompt")}
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            <div>
              <label htmlFor={fid("repository")} className={label}>
                Repository
              </label>
              <input
                id={fid("repository")}
                data-testid="start-run-repository"
                required
                autoComplete="off"
                list={`${id}-repos`}
                value={repository}
                onChange={(e) => setRepository(e.target.value)}
                aria-invalid={!!errors.repository}
                aria-describedby={described("repository")}
                className={input}
              />
              <datalist id={`${id}-repos`}>
                {[...new Set((online ?? []).flatMap((r) => r.repositories))].map((r) => (
                  <option key={r} value={r} />
                ))}
              </datalist>
              {fieldError("repository")}
            </div>
            <div>
              <label htmlFor={fid("base")} className={label}>
                Base branch
              </label>
              <input
                id={fid("base")}
                data-testid="start-run-base"
                autoComplete="off"
                value={base}
                onChange={(e) => setBase(e.target.value)}
                aria-invalid={!!errors.base}
                aria-describedby={described("base")}
                className={input}
              />
              {fieldError("base")}
            </div>
          </div>
          <div>
            <label htmlFor={fid("agent")} className={label}>
              Agent
            </label>
            <select
              id={fid("agent")}
              data-testid="start-run-agent"
              value={agent}
              onChange={(e) => {
                setAgent(AgentName.safeParse(e.target.value).data ?? "codex");
                setModel(""); // each agent has its own models and providers
                setProvider("");
              }}
              aria-invalid={!!errors.agent}
              aria-describedby={described("agent")}
              className={input}
            >
              <option value="codex">codex</option>
              <option value="claude">claude</option>
            </select>
            {fieldError("agent")}
          </div>
          <ModelChoice
            agent={agent}
            online={online}
            model={{ ...optional("model"), value: model, set: setModel }}
            provider={{ ...optional("provider"), value: provider, set: setProvider }}
          />
          <ProfileChoice
            agent={agent}
            value={profile}
            set={setProfile}
            name={`${id}-profile`}
            describedBy={described("profile")}
            error={fieldError("profile")}
          />
          <OptionalField
            {...optional("instructions")}
            testId="start-run-instructions"
            title="Instructions"
            value={instructions}
            set={setInstructions}
            rows={3}
            hint="How the agent should work, beside the prompt: Claude Code's system prompt, Codex's developer instructions."
          />
          <OptionalField
            {...optional("commands")}
            testId="start-run-commands"
            title="Required commands"
            value={commands}
            set={setCommands}
            rows={2}
            mono
            placeholder="npm test"
            hint="One per line; each must pass for the run's change-set to be green."
          />
          <OptionalField
            {...optional("secrets")}
            testId="start-run-secrets"
            title="Secrets"
            value={secrets}
            set={setSecrets}
            mono
            placeholder="NPM_TOKEN, SENTRY_DSN"
            hint="Names, comma separated. Their values stay with the runner."
          />
          {general && (
            <p role="alert" data-testid="start-run-error" className="text-sm text-red-700 dark:text-red-400">
              {general}
            </p>
          )}
          <div className="flex justify-end gap-2 pt-1">
            <button
              type="button"
              onClick={() => dialog.current?.close()}
              className={`${button} border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800`}
            >
              Cancel
            </button>
            <button
              type="submit"
              data-testid="start-run-submit"
              disabled={busy}
              className={`${button} bg-blue-700 text-white hover:bg-blue-800`}
            >
              {busy ? "Starting…" : "Start run"}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
