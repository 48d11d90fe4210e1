import type { Run } from "@/lib/core/protocol";
import { CheckpointPayload } from "@/lib/core/protocol/runner-contract";

/**
 * A runner run's own lines in its panel (§5): who is taking it ("Waiting for a runner" →
 * "Starting on <runner>"), what was asked (repository@base, agent, profile), its last
 * checkpoint and log line while it works, and the runner's failure when there is one.
 */
export function RunnerLines({ run }: { run: Run }) {
  const req = run.request;
  const checkpoint = run.checkpoint ? CheckpointPayload.safeParse(run.checkpoint).data : undefined;
  const live = run.state !== "finished";
  return (
    <>
      {run.state === "queued" &&
        (run.runner ? (
          <p data-testid="run-assigned" className="mt-1.5 text-sm text-zinc-800 dark:text-zinc-200">
            Starting on <span className="font-medium">{run.runner.name}</span>
          </p>
        ) : (
          <p
            data-testid="run-waiting"
            className="mt-1.5 flex items-center gap-1.5 text-sm text-zinc-800 dark:text-zinc-200"
          >
            <span aria-hidden className="typing-dots" />
            Waiting for a runner
          </p>
        ))}
      {req && (
        <p data-testid="run-request" className="mt-1 flex flex-wrap gap-x-1.5 text-xs text-zinc-600 dark:text-zinc-400">
          <span className="break-all font-mono" title="repository@base branch">
            {req.repository}@{req.base_branch}
          </span>
          <span aria-hidden>·</span>
          <span>{req.agent}</span>
          {req.model && (
            <>
              <span aria-hidden>·</span>
              <span>{req.model}</span>
            </>
          )}
          {req.provider && (
            <>
              <span aria-hidden>·</span>
              <span title="model provider">{req.provider}</span>
            </>
          )}
          <span aria-hidden>·</span>
          <span>{req.profile}</span>
          {req.required_commands.length > 0 && (
            <>
              <span aria-hidden>·</span>
              <span title={req.required_commands.join("\n")}>
                {req.required_commands.length} required {req.required_commands.length === 1 ? "command" : "commands"}
              </span>
            </>
          )}
          {req.instructions && (
            <>
              <span aria-hidden>·</span>
              <span data-testid="run-request-instructions" title={req.instructions}>
                with instructions
              </span>
            </>
          )}
          {req.secrets.length > 0 && (
            <>
              <span aria-hidden>·</span>
              <span>secrets: {req.secrets.join(", ")}</span>
            </>
          )}
        </p>
      )}
      {live && checkpoint && (
        <p data-testid="run-checkpoint" className="mt-1 truncate text-xs text-zinc-600 dark:text-zinc-400">
          checkpoint{" "}
          <code title={checkpoint.sha} className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">
            {checkpoint.sha.slice(0, 7)}
          </code>{" "}
          {checkpoint.reason}
        </p>
      )}
      {live && run.last_log && (
        <p
          data-testid="run-last-log"
          className="mt-1 truncate font-mono text-xs text-zinc-600 dark:text-zinc-400"
          title={run.last_log}
        >
          {run.last_log}
        </p>
      )}
      {run.runner_error && (
        <p
          data-testid="run-runner-error"
          className="mt-1.5 whitespace-pre-wrap break-words rounded-md bg-red-50 px-2 py-1 text-xs text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          <span className="font-medium">Runner failed:</span> {run.runner_error}
        </p>
      )}
    </>
  );
}
