"use client";

import type { ReactNode } from "react";
import type { OnlineRunner } from "@/lib/browser/api";
import { TAKES_PROVIDER, type AgentName } from "@/lib/core/protocol/runner-contract";

export const input =
  "w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-blue-600 aria-[invalid=true]:border-red-600 dark:border-zinc-700 dark:bg-zinc-900 dark:aria-[invalid=true]:border-red-400";
export const label = "mb-1 block text-sm font-medium";
export const hint = "mt-0.5 text-xs text-zinc-600 dark:text-zinc-400";

/** What the connected runners offer for an agent ([RN5]): each model or provider once, in the order seen. */
function offered(online: OnlineRunner[] | null, agent: string, what: "models" | "providers"): string[] {
  const all = (online ?? []).flatMap((r) => r.adapters.filter((a) => a.agent === agent).flatMap((a) => a[what] ?? []));
  return [...new Set(all)];
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
  const models = offered(online, agent, "models");
  const providers = offered(online, agent, "providers");
  const takesProvider = TAKES_PROVIDER[agent as AgentName] ?? false;
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <div>
        <label htmlFor={model.id} className={label}>
          Model
        </label>
        <select
          id={model.id}
          data-testid="start-run-model"
          value={model.value}
          onChange={(e) => model.set(e.target.value)}
          aria-invalid={model.invalid}
          aria-describedby={model.describedBy}
          className={input}
        >
          <option value="">The runner&apos;s default</option>
          {models.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        {model.error}
      </div>
      <div>
        <label htmlFor={provider.id} className={label}>
          Provider
        </label>
        <select
          id={provider.id}
          data-testid="start-run-provider"
          value={takesProvider ? provider.value : ""}
          disabled={!takesProvider}
          onChange={(e) => provider.set(e.target.value)}
          aria-invalid={provider.invalid}
          aria-describedby={[provider.describedBy, `${provider.id}-hint`].filter(Boolean).join(" ")}
          className={input}
        >
          <option value="">The runner&apos;s default</option>
          {takesProvider &&
            providers.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
        </select>
        <p id={`${provider.id}-hint`} className={hint}>
          {takesProvider
            ? "A model provider the runner has configured."
            : "Claude Code takes no provider: its runner's configuration picks the endpoint."}
        </p>
        {provider.error}
      </div>
    </div>
  );
}
