import type { StoredEvent } from "@/lib/core/protocol";
import { ObjectRef, type ChangeSetPayload } from "@/lib/core/protocol/runner-contract";
import { actorName, type Directory } from "@/lib/core/views/names";
import { OutputSize } from "@/components/room/output-size";
import { Collapsible, Markdown } from "@/components/ui/markdown";
import { muted, when } from "./format";

type Of<T extends StoredEvent["type"]> = Extract<StoredEvent, { type: T }>;

/** Every status the run reported, oldest first: the typing indicator's history. */
export function StatusHistory({ events, dir }: { events: StoredEvent[]; dir: Directory }) {
  const statuses = events.filter((e): e is Of<"run.status"> => e.type === "run.status");
  if (!statuses.length) return <p className={`text-sm ${muted}`}>No statuses.</p>;
  return (
    <ol className="max-h-80 space-y-0.5 overflow-y-auto text-sm" tabIndex={0} aria-label="Status history">
      {statuses.map((s) => (
        <li key={s.seq} data-seq={s.seq} className="flex flex-wrap gap-x-2">
          <span className={`tabular-nums ${muted}`}>{when(s.ts)}</span>
          <span className={muted}>{actorName(dir, s.actor)}</span>
          <span>{s.verb_phrase}</span>
          {s.progress !== undefined && <span className={`tabular-nums ${muted}`}>{Math.round(s.progress * 100)}%</span>}
          {s.estimate_seconds !== undefined && (
            <span className={`tabular-nums ${muted}`}>~{s.estimate_seconds} s left</span>
          )}
        </li>
      ))}
    </ol>
  );
}

/** The run's messages, as the room showed them (markdown, sanitized). */
export function Messages({ events, dir }: { events: StoredEvent[]; dir: Directory }) {
  const messages = events.filter((e): e is Of<"message.posted"> => e.type === "message.posted");
  if (!messages.length) return <p className={`text-sm ${muted}`}>No messages.</p>;
  return (
    <ol className="space-y-3">
      {messages.map((m) => (
        <li key={m.seq} data-seq={m.seq}>
          <p className="text-xs">
            <span className="font-semibold">{actorName(dir, m.actor)}</span>{" "}
            <span className={`tabular-nums ${muted}`}>{when(m.ts)}</span>
          </p>
          <div className="text-sm">
            <Collapsible text={m.text}>
              <Markdown text={m.text} />
            </Collapsible>
          </div>
        </li>
      ))}
    </ol>
  );
}

/** A log line's command output kept whole in the object store ([RN3]), when it has one. */
function outputOf(l: Of<"runner.event">) {
  const p = l.payload;
  return p && typeof p.command === "string" ? ObjectRef.safeParse(p.output_ref).data : undefined;
}

/**
 * The runner's own lines about the run (started, log, checkpoint, change-set, failed,
 * completed); a command's output too long to keep inline is offered whole ("output: N KB
 * (open)"), except in a shared view (`runId` null), which reads no objects.
 */
export function RunnerLog({ events, runId }: { events: StoredEvent[]; runId: string | null }) {
  const lines = events.filter((e): e is Of<"runner.event"> => e.type === "runner.event");
  if (!lines.length) return <p className={`text-sm ${muted}`}>No runner events.</p>;
  return (
    <ol className="max-h-80 space-y-0.5 overflow-y-auto font-mono text-xs" tabIndex={0} aria-label="Runner log">
      {lines.map((l) => {
        const output = outputOf(l);
        return (
          <li key={l.seq} className="whitespace-pre-wrap break-words">
            <span className={muted}>
              {when(l.occurred_at)} #{l.sequence} {l.kind}
            </span>{" "}
            {l.message}
            {output && (
              <>
                {" "}
                <OutputSize runId={runId} output={output} of={String(l.payload!.command)} />
              </>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** A change-set without its artifacts (a shared view, [SHR1]): head, files with +/−, checks passed or failed. */
export function ChangeSetSummary({ cs }: { cs: ChangeSetPayload }) {
  return (
    <div data-testid="change-set-summary" className="text-sm">
      <p>
        <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">{cs.head_sha.slice(0, 7)}</code> on {cs.branch} ·{" "}
        {cs.files.length} files · +{cs.additions} −{cs.deletions}
      </p>
      <ul className="mt-1 font-mono text-xs">
        {cs.files.map((f) => (
          <li key={f.path}>
            {f.status} {f.path} {f.binary ? "binary" : `+${f.additions ?? 0} −${f.deletions ?? 0}`}
          </li>
        ))}
      </ul>
      <ul className="mt-1 text-xs">
        {cs.checks.map((c) => (
          <li key={c.command}>
            {c.passed ? "passed" : "failed"}: <code>{c.command}</code>
          </li>
        ))}
      </ul>
      <p className={`mt-1 text-xs ${muted}`}>The diff and check output are not part of a shared view.</p>
    </div>
  );
}
