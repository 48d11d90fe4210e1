"use client";

/** The start form's fields that are more than a text box: model and provider, and the permission profile. */
import type { OnlineRunner } from "@/lib/browser/api";
import {
  PROFILE_DESCRIPTIONS,
  TAKES_PROVIDER,
  type AgentName,
  type PermissionProfile,
} from "@/lib/core/protocol/runner-contract";
import { Field, Select, useFieldGroup } from "../ui/field";

/** What the connected runners offer for an agent ([RN5]): each model or provider once, in the order seen. */
function offered(online: OnlineRunner[] | null, agent: string, what: "models" | "providers"): string[] {
  const all = (online ?? []).flatMap((r) => r.adapters.filter((a) => a.agent === agent).flatMap((a) => a[what] ?? []));
  return [...new Set(all)];
}

const PROFILES = ["workspace-write", "read-only", "ask"] as const;

/** The permission profile ([RN1]) as radios, each with what it means for the chosen agent; inside a `group` Field. */
export function ProfileChoice(f: {
  agent: string;
  value: PermissionProfile;
  set: (v: PermissionProfile) => void;
  name: string;
}) {
  return (
    <div {...useFieldGroup()} data-testid="start-run-profile">
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
    </div>
  );
}

interface Choice {
  value: string;
  set: (v: string) => void;
  error?: string;
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
      <DefaultOr choice={model} title="Model" name="model" options={offered(online, agent, "models")} />
      <DefaultOr
        choice={takesProvider ? provider : { ...provider, value: "" }}
        title="Provider"
        name="provider"
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
  name: "model" | "provider";
  options: string[];
  disabled?: boolean;
  hint?: string;
}) {
  return (
    <Field label={f.title} hint={f.hint} error={f.choice.error} name={f.name} errorTestId="start-run-error">
      <Select
        data-testid={`start-run-${f.name}`}
        value={f.choice.value}
        disabled={f.disabled}
        onChange={(e) => f.choice.set(e.target.value)}
        options={[["", "The runner's default"], ...f.options.map((o) => [o, o] as const)]}
      />
    </Field>
  );
}
