"use client";

/** The start form's styles and its fields that are more than a text box: model and provider, profile, optional text. */
import type { ReactNode } from "react";
import type { OnlineRunner } from "@/lib/browser/api";
import {
  PROFILE_DESCRIPTIONS,
  TAKES_PROVIDER,
  type AgentName,
  type PermissionProfile,
} from "@/lib/core/protocol/runner-contract";

export const input =
  "w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-blue-600 aria-[invalid=true]:border-red-600 dark:border-zinc-700 dark:bg-zinc-900 dark:aria-[invalid=true]:border-red-400";
export const label = "mb-1 block text-sm font-medium";
export const hint = "mt-0.5 text-xs text-zinc-600 dark:text-zinc-400";

/** What the connected runners offer for an agent ([RN5]): each model or provider once, in the order seen. */
function offered(online: OnlineRunner[] | null, agent: string, what: "models" | "providers"): string[] {
  const all = (online ?? []).flatMap((r) => r.adapters.filter((a) => a.agent === agent).flatMap((a) => a[what] ?? []));
  return [...new Set(all)];
}

const PROFILES = ["workspace-write", "read-only", "ask"] as const;

/** The permission profile ([RN1]), each with what it means for the chosen agent. */
export function ProfileChoice(f: {
  agent: string;
  value: PermissionProfile;
  set: (v: PermissionProfile) => void;
  /** The radio group's name. */
  name: string;
  describedBy?: string;
  error: ReactNode;
}) {
  return (
    <fieldset data-testid="start-run-profile" aria-describedby={f.describedBy}>
      <legend className={label}>Permission profile</legend>
      {PROFILES.map((p) => (
        <label key={p} className="flex items-start gap-2 py-0.5 text-sm">
          <input
            type="radio"
            name={f.name}
            value={p}
            checked={f.value === p}
            onChange={() => f.set(p)}
            className="mt-1 focus-visible:outline-2 focus-visible:outline-blue-600"
          />
          <span>
            <span className="font-medium">{p}</span>{" "}
            <span data-testid="start-run-profile-text" className="text-zinc-600 dark:text-zinc-400">
              — {PROFILE_DESCRIPTIONS[f.agent === "claude" ? "claude" : "codex"][p]}
            </span>
          </span>
        </label>
      ))}
      {f.error}
    </fieldset>
  );
}

/**
 * A field the form may leave empty: its label with "(optional)", a text box (a textarea when
 * it has `rows`), the hint under it and its error beside it.
 */
export function OptionalField(f: {
  id: string;
  testId: string;
  title: string;
  value: string;
  set: (v: string) => void;
  hint: ReactNode;
  rows?: number;
  mono?: boolean;
  placeholder?: string;
  invalid: boolean;
  describedBy?: string;
  error: ReactNode;
}) {
  const common = {
    id: f.id,
    "data-testid": f.testId,
    value: f.value,
    placeholder: f.placeholder,
    "aria-invalid": f.invalid,
    "aria-describedby": [f.describedBy, `${f.id}-hint`].filter(Boolean).join(" "),
    className: f.mono ? `${input} font-mono` : input,
  };
  return (
    <div>
      <label htmlFor={f.id} className={label}>
        {f.title} <span className="font-normal text-zinc-600 dark:text-zinc-400">(optional)</span>
      </label>
      {f.rows ? (
        <textarea {...common} rows={f.rows} onChange={(e) => f.set(e.target.value)} />
      ) : (
        <input {...common} autoComplete="off" onChange={(e) => f.set(e.target.value)} />
      )}
      <p id={`${f.id}-hint`} className={hint}>
        {f.hint}
      </p>
      {f.error}
    </div>
  );
}

interface Choice {
  value: string;
  set: (v: string) => void;
  /** The select's id (its label's `for`). */
  id: string;
  invalid: boolean;
  describedBy?: string;
  error: ReactNode;
}

/**
 * The model and provider of a run ([RN5]), limited to what the connected runners advertise
 * for the chosen agent; left at "the runner's default", the request names neither. Claude
 * Code takes no provider, and says so instead of offering one.
 */
export function ModelChoice({
  agent,
  online,
  model,
  provider,
}: {
  agent: string;
  online: OnlineRunner[] | null;
  model: Choice;
  provider: Choice;
}) {
  const takesProvider = TAKES_PROVIDER[agent as AgentName] ?? false;
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <DefaultOr choice={model} title="Model" testId="start-run-model" options={offered(online, agent, "models")} />
      <DefaultOr
        choice={takesProvider ? provider : { ...provider, value: "" }}
        title="Provider"
        testId="start-run-provider"
        options={takesProvider ? offered(online, agent, "providers") : []}
        disabled={!takesProvider}
        hint={
          takesProvider
            ? "A model provider the runner has configured."
            : "Claude Code takes no provider: its runner's configuration picks the endpoint."
        }
      />
    </div>
  );
}

/** A select of "the runner's default" and the options offered, with its label, hint and error. */
function DefaultOr(f: {
  choice: Choice;
  title: string;
  testId: string;
  options: string[];
  disabled?: boolean;
  hint?: string;
}) {
  const { choice } = f;
  return (
    <div>
      <label htmlFor={choice.id} className={label}>
        {f.title}
      </label>
      <select
        id={choice.id}
        data-testid={f.testId}
        value={choice.value}
        disabled={f.disabled}
        onChange={(e) => choice.set(e.target.value)}
        aria-invalid={choice.invalid}
        aria-describedby={
          [choice.describedBy, f.hint ? `${choice.id}-hint` : ""].filter(Boolean).join(" ") || undefined
        }
        className={input}
      >
        <option value="">The runner&apos;s default</option>
        {f.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      {f.hint && (
        <p id={`${choice.id}-hint`} className={hint}>
          {f.hint}
        </p>
      )}
      {choice.error}
    </div>
  );
}
