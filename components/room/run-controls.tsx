"use client";

import { useState } from "react";
import type { CommandName, Receipt, Run } from "@/lib/core/protocol";
import type { Directory } from "../../lib/core/views/names";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/field";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";
import type { RoomActions } from "./room-context";

const TOGGLE = {
  pause: { command: "pause", pending: "pausing", words: "Pause", busyWords: "Pausing…" },
  resume: { command: "resume", pending: "resuming", words: "Resume", busyWords: "Resuming…" },
} as const;

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
  send: RoomActions["send"];
  forceFinish: RoomActions["forceFinish"];
}) {
  const [steering, setSteering] = useState(false);
  const [guidance, setGuidance] = useState("");
  const [confirming, setConfirming] = useState(false);
  // The run's buttons send one command at a time: each is disabled while any is in flight.
  const act = useAction((command: CommandName | "force-finish") =>
    command === "force-finish" ? forceFinish(run.id) : send(run.id, command),
  );
  const steer = useAction((text: string) => send(run.id, "steer", text), {
    fields: ["text"],
    onDone: () => {
      setGuidance("");
      setSteering(false);
    },
  });
  if (run.state === "finished") return null;
  const busy = act.busy || steer.busy;
  const live = run.state === "queued" || run.state === "running" || run.state === "paused";
  const untaken = run.state === "queued" && !run.harness_id;
  const obeys = (c: CommandName) => !run.commands || run.commands.includes(c);
  const absent = untaken ? "Steer once a runner takes it" : absentNote(run);
  // Pause and Resume are one button: Pause while it runs (or is being paused), Resume while it is paused.
  const toggle =
    run.state === "running" || run.pending === "pausing"
      ? TOGGLE.pause
      : run.state === "paused" || run.pending === "resuming"
        ? TOGGLE.resume
        : null;
  return (
    <div className="mt-3">
      <div className="flex flex-wrap items-center gap-2">
        {live && !untaken && obeys("steer") && (
          <Button
            size="sm"
            data-testid="run-steer"
            aria-expanded={steering}
            disabled={busy}
            onClick={() => setSteering(!steering)}
          >
            Steer
          </Button>
        )}
        {toggle && obeys(toggle.command) && (
          <Button
            size="sm"
            data-testid={`run-${toggle.command}`}
            busy={act.busy}
            disabled={steer.busy || !!run.pending}
            onClick={() => act.run(toggle.command)}
          >
            {run.pending === toggle.pending ? toggle.busyWords : toggle.words}
          </Button>
        )}
        {live && obeys("cancel") && !confirming && (
          <Button
            tone="danger"
            size="sm"
            data-testid="run-cancel"
            disabled={busy || !!run.pending}
            onClick={() => setConfirming(true)}
          >
            {run.pending === "cancelling" ? "Cancelling…" : "Cancel"}
          </Button>
        )}
        {confirming && (
          <span className="flex items-center gap-2 text-xs">
            <span>Stop this run?</span>
            <Button
              tone="danger"
              size="sm"
              data-testid="run-cancel-confirm"
              busy={act.busy}
              disabled={steer.busy}
              onClick={() => {
                setConfirming(false);
                return act.run("cancel");
              }}
            >
              Yes, cancel it
            </Button>
            <Button size="sm" onClick={() => setConfirming(false)}>
              Keep running
            </Button>
          </span>
        )}
        {absent && (
          <span data-testid="run-commands-note" className="text-xs text-zinc-600 dark:text-zinc-400">
            {absent}
          </span>
        )}
        {unresponsive && (
          <Button
            tone="danger"
            size="sm"
            data-testid="run-force-finish"
            busy={act.busy}
            disabled={steer.busy}
            onClick={() => act.run("force-finish")}
          >
            Force-finish
          </Button>
        )}
      </div>
      {steering && (
        <Form action={steer} className="mt-2" onSubmit={() => guidance.trim() && steer.run(guidance.trim())}>
          <div className="flex items-start gap-2">
            <Field
              label="Guidance for the run"
              hideLabel
              error={steer.fields.text}
              name="text"
              className="min-w-0 flex-1"
            >
              <Input
                data-testid="run-steer-text"
                autoFocus
                value={guidance}
                onChange={(e) => setGuidance(e.target.value)}
                placeholder="Tell the agent what to do differently"
              />
            </Field>
            <Button
              type="submit"
              data-testid="run-steer-send"
              busy={steer.busy}
              disabled={act.busy || !guidance.trim()}
            >
              Send
            </Button>
          </div>
          <Alert className="mt-1 text-xs">{steer.error}</Alert>
        </Form>
      )}
      <Alert className="mt-1 text-xs">{act.error}</Alert>
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
