"use client";

import { useId, useMemo, useRef, useState } from "react";
import type { ChangedFile, ChangeSetPayload, CheckResult } from "@/lib/core/protocol/runner-contract";
import { DiffView } from "./diff-view";
import { formatBytes, MAX_OBJECT_BYTES, ObjectError, readObject } from "./objects";
import { OutputSize } from "./output-size";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";

/** Check output is long: the page keeps its tail, where the failure usually is. */
const OUTPUT_TAIL = 64 * 1024;

const STATUS: Record<ChangedFile["status"], { letter: string; tone: string }> = {
  added: { letter: "A", tone: "text-green-800 dark:text-green-300" },
  modified: { letter: "M", tone: "text-amber-800 dark:text-amber-300" },
  deleted: { letter: "D", tone: "text-red-800 dark:text-red-300" },
  renamed: { letter: "R", tone: "text-blue-800 dark:text-blue-300" },
};

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function Delta({ add, del }: { add: number; del: number }) {
  return (
    <span className="whitespace-nowrap font-mono">
      <span className="text-green-800 dark:text-green-300">+{add}</span>{" "}
      <span className="text-red-800 dark:text-red-300">−{del}</span>
      <span className="sr-only">
        {" "}
        ({add} added, {del} removed lines)
      </span>
    </span>
  );
}

type Loaded =
  { state: "idle" } | { state: "loading" } | { state: "ready"; text: string } | { state: "error"; message: string };

/** Load an artifact on demand (a fresh signed URL each time), and drop it when closed. */
function useArtifact(runId: string, ref: { sha256: string; bytes: number }, what: string) {
  const [loaded, setLoaded] = useState<Loaded>({ state: "idle" });
  const generation = useRef(0); // an answer that arrives after a close (or a newer open) is dropped
  const open = async () => {
    const mine = ++generation.current;
    if (ref.bytes > MAX_OBJECT_BYTES)
      return setLoaded({
        state: "error",
        message: `The ${what} is ${formatBytes(ref.bytes)}, too large to show here.`,
      });
    setLoaded({ state: "loading" });
    let next: Loaded;
    try {
      next = { state: "ready", text: await readObject(runId, ref.sha256, what) };
    } catch (err) {
      next = { state: "error", message: err instanceof ObjectError ? err.message : `Could not load the ${what}.` };
    }
    if (generation.current === mine) setLoaded(next);
  };
  const close = () => {
    generation.current++;
    setLoaded({ state: "idle" });
  };
  return { loaded, open, close };
}

function CheckRow({ runId, check }: { runId: string; check: CheckResult }) {
  const { loaded, open, close } = useArtifact(runId, check.output, "check output");
  const id = useId();
  const expanded = loaded.state !== "idle";
  const text = loaded.state === "ready" ? loaded.text : "";
  const cut = text.length > OUTPUT_TAIL;
  return (
    <li data-testid="check" data-command={check.command} data-passed={String(check.passed)} className="py-1">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span
          className={`font-medium ${check.passed ? "text-green-800 dark:text-green-300" : "text-red-800 dark:text-red-300"}`}
        >
          <span aria-hidden>{check.passed ? "✓" : "✗"}</span> {check.passed ? "passed" : "failed"}
        </span>
        <code className="min-w-0 break-all rounded bg-zinc-100 px-1 dark:bg-zinc-800">{check.command}</code>
        <span className="text-zinc-600 dark:text-zinc-400">
          exit {check.exit_code ?? "none"} · {formatDuration(check.duration_ms)} ·
        </span>
        <OutputSize runId={runId} output={check.output} of={check.command} />
        <Button
          size="xs"
          data-testid="check-output-toggle"
          aria-expanded={expanded}
          aria-controls={id}
          aria-label={`${expanded ? "Hide" : "Show"} the output of ${check.command} here`}
          onClick={() => (expanded ? close() : void open())}
        >
          {expanded ? "hide" : "show"}
        </Button>
      </div>
      <div id={id}>
        {loaded.state === "loading" && <p className="mt-1 text-zinc-600 dark:text-zinc-400">Loading…</p>}
        {loaded.state === "error" && <Alert className="mt-1">{loaded.message}</Alert>}
        {loaded.state === "ready" && (
          <>
            {cut && (
              <p className="mt-1 text-zinc-600 dark:text-zinc-400">
                The last {formatBytes(OUTPUT_TAIL)} of {formatBytes(check.output.bytes)}:
              </p>
            )}
            <pre
              data-testid="check-output"
              tabIndex={0}
              aria-label={`Output of ${check.command}`}
              className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-md bg-zinc-100 p-2 font-mono text-[12px] text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-600 dark:bg-zinc-950 dark:text-zinc-100"
            >
              {(cut ? text.slice(-OUTPUT_TAIL) : text) || "(no output)"}
            </pre>
          </>
        )}
      </div>
    </li>
  );
}

/**
 * What a runner's run changed ([RN3]): head SHA and branch, totals, the files, the checks
 * with their output, the worktree's cleanup, and the diff on demand. Artifacts are read
 * through a signed URL asked for at each click; their text is never HTML.
 */
export function ChangeSet({ runId, cs }: { runId: string; cs: ChangeSetPayload }) {
  const diff = useArtifact(runId, cs.diff, "diff");
  const diffId = useId();
  const binaries = useMemo(() => new Set(cs.files.filter((f) => f.binary).map((f) => f.path)), [cs.files]);
  const showing = diff.loaded.state !== "idle";
  return (
    <div data-testid="change-set" className="mt-3 border-t border-zinc-100 pt-2 text-xs dark:border-zinc-800">
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <h3 className="text-[13px] font-semibold">Changes</h3>
        <code data-testid="change-set-head" title={cs.head_sha} className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">
          {cs.head_sha.slice(0, 7)}
        </code>
        <span className="min-w-0 break-all text-zinc-600 dark:text-zinc-400">
          on <span data-testid="change-set-branch">{cs.branch}</span>
        </span>
        <span data-testid="change-set-totals">
          {cs.files.length} {cs.files.length === 1 ? "file" : "files"} · <Delta add={cs.additions} del={cs.deletions} />
        </span>
      </div>
      {cs.files.length > 0 && (
        <ul aria-label="Changed files" className="mt-1.5 max-h-60 overflow-y-auto">
          {cs.files.map((f) => (
            <li
              key={f.path}
              data-testid="change-set-file"
              data-path={f.path}
              data-status={f.status}
              className="flex items-baseline gap-2 py-0.5"
            >
              <span aria-hidden className={`w-3 shrink-0 font-mono font-semibold ${STATUS[f.status]?.tone ?? ""}`}>
                {STATUS[f.status]?.letter ?? "?"}
              </span>
              <span className="sr-only">{f.status}:</span>
              <span className="min-w-0 flex-1 break-all font-mono">{f.path}</span>
              {f.binary || f.additions === null || f.deletions === null ? (
                <span data-testid="change-set-binary" className="text-zinc-600 dark:text-zinc-400">
                  binary
                </span>
              ) : (
                <Delta add={f.additions} del={f.deletions} />
              )}
            </li>
          ))}
        </ul>
      )}
      {cs.checks.length > 0 && (
        <>
          <h4 className="mt-2 font-semibold">Checks</h4>
          <ul aria-label="Checks" className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {cs.checks.map((c, i) => (
              <CheckRow key={`${i}:${c.command}`} runId={runId} check={c} />
            ))}
          </ul>
        </>
      )}
      <p data-testid="change-set-cleanup" className="mt-2 text-zinc-600 dark:text-zinc-400">
        Worktree <code className="break-all">{cs.cleanup.worktree}</code>{" "}
        {cs.cleanup.policy === "keep" ? "is kept" : "is removed after the run"}.
      </p>
      <div className="mt-2 flex items-center gap-2">
        <Button
          size="xs"
          data-testid="change-set-show-diff"
          aria-expanded={showing}
          aria-controls={diffId}
          disabled={diff.loaded.state === "loading"}
          onClick={() => (showing ? diff.close() : void diff.open())}
        >
          {showing ? "Hide diff" : "Show diff"}
        </Button>
        <span className="text-zinc-600 dark:text-zinc-400">{formatBytes(cs.diff.bytes)}</span>
      </div>
      <div id={diffId}>
        {diff.loaded.state === "loading" && <p className="mt-1 text-zinc-600 dark:text-zinc-400">Loading the diff…</p>}
        {diff.loaded.state === "error" && (
          <Alert testId="change-set-diff-error" className="mt-1">
            {diff.loaded.message}
          </Alert>
        )}
        {diff.loaded.state === "ready" && <DiffView text={diff.loaded.text} binaries={binaries} />}
      </div>
    </div>
  );
}
