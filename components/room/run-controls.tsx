"use client";

import { useState } from "react";
import type { CommandName, Receipt, Run } from "@/lib/core/protocol";
import type { Directory } from "../../lib/core/views/names";

export type SendCommand = (runId: string, command: CommandName, text?: string) => Promise<string | null>;

const btn =
  "rounded-md border px-2.5 py-1 text-xs font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:cursor-not-allowed disabled:opacity-60";
const neutral = `${btn} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800`;
const danger = `${btn} border-red-300 bg-white text-red-700 hover:bg-red-50 dark:border-red-800 dark:bg-zinc-900 dark:text-red-300 dark:hover:bg-red-950`;

/**
 * The run's buttons ([UI5]): each shown only where [RUN1] allows it, disabled while its
 * command is pending. Pause/Resume is one toggle; Steer opens a text box; Cancel asks once;
 * Force-finish only for an unresponsive harness. A queued run no runner has taken offers
 * only Cancel, and says when Steer comes ([RUN3]).
 */
export function RunControls({
  run,
  unresponsive,
  send,
  forceFinish,
}: {
  run: Run;
  unresponsive: boolean;
  send: SendCommand;
  forceFinish: (runId: string) => Promise<string | null>;
}) {
  const [steering, setSteering] = useState(false);
  const [guidance, setGuidance] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (run.state === "finished") return null;

  const act = async (f: () => Promise<string | null>) => {
    setBusy(true);
    const err = await f();
    setBusy(false);
    setError(err);
    return err;
  };
  const live = run.state === "queued" || run.state === "running" || run.state === "paused";
  const untaken = run.state === "queued" && !run.harness_id;
  const obeys = (c: CommandName) => !run.commands || run.commands.includes(c);
  const absent = untaken ? "Steer once a runner takes it" : absentNote(run);
  return (
    <div className="mt-3">
      <div className="flex flex-wrap items-center gap-2">
        {live && !untaken && obeys("steer") && (
          <button
            type="button"
            data-testid="run-steer"
            aria-expanded={steering}
            className={neutral}
            disabled={busy}
            onClick={() => setSteering(!steering)}
          >
            Steer
          </button>
        )}
        {obeys("pause") && (run.state === "running" || run.pending === "pausing") && (
          <button
            type="button"
            data-testid="run-pause"
            className={neutral}
            disabled={busy || !!run.pending}
            onClick={() => act(() => send(run.id, "pause"))}
          >
            {run.pending === "pausing" ? "Pausing…" : "Pause"}
          </button>
        )}
        {obeys("resume") && (run.state === "paused" || run.pending === "resuming") && (
          <button
            type="button"
            data-testid="run-resume"
            className={neutral}
            disabled={busy || !!run.pending}
            onClick={() => act(() => send(run.id, "resume"))}
          >
            {run.pending === "resuming" ? "Resuming…" : "Resume"}
          </button>
        )}
        {live && obeys("cancel") && !confirming && (
          <button
            type="button"
            data-testid="run-cancel"
            className={danger}
            disabled={busy || !!run.pending}
            onClick={() => setConfirming(true)}
          >
            {run.pending === "cancelling" ? "Cancelling…" : "Cancel"}
          </button>
        )}
        {confirming && (
          <span className="flex items-center gap-2 text-xs">
            <span>Stop this run?</span>
            <button
              type="button"
              data-testid="run-cancel-confirm"
              className={danger}
              disabled={busy}
              onClick={async () => {
                setConfirming(false);
                await act(() => send(run.id, "cancel"));
              }}
            >
              Yes, cancel it
            </button>
            <button type="button" className={neutral} onClick={() => setConfirming(false)}>
              Keep running
            </button>
          </span>
        )}
        {absent && (
          <span data-testid="run-commands-note" className="text-xs text-zinc-600 dark:text-zinc-400">
            {absent}
          </span>
        )}
        {unresponsive && (
          <button
            type="button"
            data-testid="run-force-finish"
            className={danger}
            disabled={busy}
            onClick={() => act(() => forceFinish(run.id))}
          >
            Force-finish
          </button>
        )}
      </div>
      {steering && (
        <form
          className="mt-2 flex gap-2"
          onSubmit={async (e) => {
            e.preventDefault();
            if (!guidance.trim()) return;
            const err = await act(() => send(run.id, "steer", guidance.trim()));
            if (!err) {
              setGuidance("");
              setSteering(false);
            }
          }}
        >
          <label htmlFor={`steer-${run.id}`} className="sr-only">
            Guidance for the run
          </label>
          <input
            id={`steer-${run.id}`}
            data-testid="run-steer-text"
            autoFocus
            value={guidance}
            onChange={(e) => setGuidance(e.target.value)}
            placeholder="Tell the agent what to do differently"
            className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-blue-600 dark:border-zinc-700 dark:bg-zinc-900"
          />
          <button type="submit" data-testid="run-steer-send" className={neutral} disabled={busy || !guidance.trim()}>
            Send
          </button>
        </form>
      )}
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * [RUN2] Why buttons are missing: the run's harness declared which commands it obeys, and
 * a button it would never answer is not drawn. Null when it obeys every command.
 */
function absentNote(run: Run): string | null {
  const obeyed = run.commands;
  if (!obeyed) return null;
  if (!obeyed.length)
    return run.goal_from === "harness"
      ? "Watch-only: started from a terminal"
      : "Watch-only: its harness takes no commands";
  const missing = (["steer", "pause", "cancel"] as const).filter((c) => !obeyed.includes(c));
  return missing.length ? `Its harness does not take ${missing.join(" or ")}` : null;
}

const VERB = {
  pause: "paused the run",
  resume: "resumed the run",
  cancel: "cancelled the run",
  steer: "steered",
} as const;
const STEPS = ["accepted", "delivered"] as const;

/** Each command as a line that advances live: who sent it · accepted → delivered → applied / rejected (why). */
export function Receipts({ receipts, dir }: { receipts: Receipt[]; dir: Directory }) {
  if (!receipts.length) return null;
  return (
    <ul aria-label="Commands" className="mt-3 space-y-1 border-t border-zinc-100 pt-2 text-xs dark:border-zinc-800">
      {receipts.map((r) => {
        // A budget's pause is Chips' own ([BUD3]): named so, with its reason as a steer's text is.
        const who = r.person_id === "system" ? "Chips" : (dir.persons[r.person_id] ?? "Someone");
        const reached = r.receipt === "applied" || r.receipt === "rejected" ? 2 : STEPS.indexOf(r.receipt) + 1;
        return (
          <li
            key={r.command_id}
            data-command-id={r.command_id}
            data-receipt={r.receipt}
            className="flex flex-wrap items-center gap-x-1.5 text-zinc-700 dark:text-zinc-300"
          >
            <span className="font-medium">{who}</span>
            <span>{VERB[r.command]}</span>
            {r.text && <q className="max-w-full truncate italic">{r.text}</q>}
            <span aria-hidden>·</span>
            <span className={reached >= 1 ? "" : "text-zinc-500"}>accepted</span>
            <span aria-hidden>·</span>
            <span className={reached >= 2 ? "" : "text-zinc-500"}>delivered</span>
            {r.receipt === "applied" && (
              <>
                <span aria-hidden>·</span>
                <span className="font-medium text-green-700 dark:text-green-400">applied ✓</span>
              </>
            )}
            {r.receipt === "rejected" && (
              <>
                <span aria-hidden>·</span>
                <span className="font-medium text-red-700 dark:text-red-400">
                  rejected{r.reason ? `: ${r.reason}` : ""}
                </span>
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}
