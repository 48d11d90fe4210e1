"use client";

import { useId, useRef, useState } from "react";
import { ulid } from "ulid";
import { onlineRunners, startRun, type OnlineRunner } from "@/lib/browser/api";
import { AgentName, PermissionProfile } from "@/lib/core/protocol/runner-contract";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Input, Select, TextArea } from "../ui/field";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";
import { ModelChoice, ProfileChoice } from "./start-run-fields";

/** The body fields the form shows: a refusal at one of them shows beside it. */
const FIELDS = [
  "prompt",
  "repository",
  "base_branch",
  "agent",
  "model",
  "provider",
  "profile",
  "instructions",
  "required_commands",
  "secrets",
] as const;

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

type StartBody = Omit<Parameters<typeof startRun>[0], "idempotency_key">;

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
  const promptBox = useRef<HTMLTextAreaElement>(null);
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
  const [online, setOnline] = useState<OnlineRunner[] | null>(null);
  const start = useAction(
    (request: StartBody) => {
      // The same request again (a retry after no answer) keeps its key: Chips starts it once.
      const body = JSON.stringify(request);
      const key = last.current?.body === body ? last.current.key : `start_${ulid()}`;
      last.current = { body, key };
      return startRun({ ...request, idempotency_key: key });
    },
    {
      fields: FIELDS,
      unreachable: "Could not reach Chips. Try again: the same request will not start a second run.",
      onDone: (answer) => {
        last.current = null;
        setPrompt("");
        setInstructions("");
        dialog.current?.close();
        if (answer?.run_id) onStarted?.(answer.run_id);
      },
    },
  );
  const err = start.fields;
  const fieldProps = (name: (typeof FIELDS)[number]) => ({ error: err[name], name, errorTestId: "start-run-error" });

  /** Who could take the run now: their repositories are offered, and an empty list said plainly. */
  async function loadRunners() {
    if (!workspaceId) return;
    setOnline(await onlineRunners(workspaceId).catch(() => null));
  }

  return (
    <>
      <Button
        size="sm"
        data-testid="start-run-open"
        aria-haspopup="dialog"
        onClick={() => {
          dialog.current?.showModal();
          void loadRunners();
          promptBox.current?.focus();
        }}
      >
        Start a run
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
      >
        <Form
          action={start}
          data-testid="start-run-form"
          className="max-h-[85dvh] space-y-3 overflow-y-auto p-4"
          onSubmit={() =>
            start.run({
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
            })
          }
        >
          <h2 id={`${id}-title`} className="text-base font-semibold">
            Start a run
          </h2>
          {online && (
            <p data-testid="start-run-runners" className="text-xs text-zinc-600 dark:text-zinc-400">
              {online.length
                ? `Connected: ${online.map((r) => `${r.name} (${r.adapters.map((a) => a.agent).join(", ") || "no agents"}: ${r.repositories.join(", ")})`).join("; ")}`
                : "No runner is connected now: the run will wait until one that has its repository dials in."}
            </p>
          )}
          <Field
            label="Prompt"
            hint="Posted in this room as your message; the agent works from it."
            {...fieldProps("prompt")}
          >
            <TextArea
              ref={promptBox}
              data-testid="start-run-prompt"
              required
              rows={4}
              value={prompt}
              onChange={(e) => setPrompt(e.target.value)}
            />
          </Field>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Repository" {...fieldProps("repository")}>
              <Input
                data-testid="start-run-repository"
                required
                autoComplete="off"
                list={`${id}-repos`}
                value={repository}
                onChange={(e) => setRepository(e.target.value)}
              />
              <datalist id={`${id}-repos`}>
                {[...new Set((online ?? []).flatMap((r) => r.repositories))].map((r) => (
                  <option key={r} value={r} />
                ))}
              </datalist>
            </Field>
            <Field label="Base branch" {...fieldProps("base_branch")}>
              <Input
                data-testid="start-run-base"
                autoComplete="off"
                value={base}
                onChange={(e) => setBase(e.target.value)}
              />
            </Field>
          </div>
          <Field label="Agent" {...fieldProps("agent")}>
            <Select
              data-testid="start-run-agent"
              value={agent}
              onChange={(e) => {
                setAgent(AgentName.safeParse(e.target.value).data ?? "codex");
                setModel(""); // each agent has its own models and providers
                setProvider("");
              }}
              options={[
                ["codex", "codex"],
                ["claude", "claude"],
              ]}
            />
          </Field>
          <ModelChoice
            agent={agent}
            online={online}
            model={{ value: model, set: setModel, error: err.model }}
            provider={{ value: provider, set: setProvider, error: err.provider }}
          />
          <Field label="Permission profile" group {...fieldProps("profile")}>
            <ProfileChoice agent={agent} value={profile} set={setProfile} name={`${id}-profile`} />
          </Field>
          <Field
            label="Instructions"
            note="optional"
            hint="How the agent should work, beside the prompt: Claude Code's system prompt, Codex's developer instructions."
            {...fieldProps("instructions")}
          >
            <TextArea
              data-testid="start-run-instructions"
              rows={3}
              value={instructions}
              onChange={(e) => setInstructions(e.target.value)}
            />
          </Field>
          <Field
            label="Required commands"
            note="optional"
            hint="One per line; each must pass for the run's change-set to be green."
            {...fieldProps("required_commands")}
          >
            <TextArea
              data-testid="start-run-commands"
              rows={2}
              className="font-mono"
              placeholder="npm test"
              value={commands}
              onChange={(e) => setCommands(e.target.value)}
            />
          </Field>
          <Field
            label="Secrets"
            note="optional"
            hint="Names, comma separated. Their values stay with the runner."
            {...fieldProps("secrets")}
          >
            <Input
              data-testid="start-run-secrets"
              autoComplete="off"
              className="font-mono"
              placeholder="NPM_TOKEN, SENTRY_DSN"
              value={secrets}
              onChange={(e) => setSecrets(e.target.value)}
            />
          </Field>
          <Alert testId="start-run-error">{start.error}</Alert>
          <div className="flex justify-end gap-2 pt-1">
            <Button onClick={() => dialog.current?.close()}>Cancel</Button>
            <Button type="submit" tone="primary" data-testid="start-run-submit" busy={start.busy} busyText="Starting…">
              Start run
            </Button>
          </div>
        </Form>
      </dialog>
    </>
  );
}
