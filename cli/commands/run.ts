import { ulid } from "ulid";
import { resolvePersonToken, resolveUrl } from "../config";
import { CliError, EXIT, UsageError } from "../errors";
import { call, type Client } from "../http";
import type { CommandContext, Options } from "./context";
import { CommandName, type RunCommandsAnswer } from "../../lib/core/protocol";

/** The options `chips run` takes beside the common ones. */
type RunCliOptions = Options & { timeout?: string };

const POLL_MS = 200;

function timeoutOption(raw: string | undefined): number {
  if (raw === undefined) return 30;
  if (!/^\d+(\.\d+)?$/.test(raw) || !(Number(raw) > 0) || Number(raw) > 86_400) {
    throw new UsageError(`--timeout must be a number of seconds above 0, at most 86400 (got "${raw}")`);
  }
  return Number(raw);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `chips run pause|resume|cancel RUN`, `chips run steer RUN TEXT`: a person's command to
 * a run, then its receipt as it advances — one line per new state (`accepted`,
 * `delivered`, then `applied` or `rejected: <reason>`) — polled until the harness answers
 * or `--timeout` seconds pass. Exit 0 applied; 1 rejected, or refused by the server; 2
 * timed out (or a usage error).
 */
export async function runCommand(ctx: CommandContext): Promise<void> {
  const { opts, args, env, io } = ctx;
  if (args[0] === "start") return (await import("./run-start")).runStart({ ...ctx, args: args.slice(1) });
  const [command, runId, ...rest] = args;
  if (!command) throw new UsageError("run needs a command: start, pause, resume, cancel or steer");
  if (!CommandName.safeParse(command).success)
    throw new UsageError(`unknown run command "${command}" (start, pause, resume, cancel or steer)`);
  if (!runId) throw new UsageError(`run ${command} needs a RUN id`);
  const text = command === "steer" ? rest.shift() : undefined;
  if (command === "steer" && !text) throw new UsageError('run steer needs the guidance: chips run steer RUN "text"');
  if (rest.length)
    throw new UsageError(
      `run ${command} takes ${command === "steer" ? "RUN and TEXT" : "only RUN"} (got "${rest[0]}"; quote the text)`,
    );
  const timeout = timeoutOption((opts as RunCliOptions).timeout);

  const client: Client = { url: resolveUrl(opts, env), token: resolvePersonToken(opts, env) };
  const deadline = Date.now() + timeout * 1000;
  const runPath = `/api/v1/runs/${encodeURIComponent(runId)}/commands`;
  const body = { command, ...(text !== undefined ? { text } : {}), idempotency_key: `cli-${ulid()}` };
  const sent = await call<{ command_id: string }>(client, "POST", runPath, JSON.stringify(body));

  let shown = "accepted";
  io.out("accepted\n");
  for (;;) {
    let page: RunCommandsAnswer | null = null;
    try {
      page = await call<RunCommandsAnswer>(client, "GET", runPath);
    } catch (err) {
      // The server may blink while we wait; anything but "unreachable" is final.
      if (!(err instanceof CliError) || err.exitCode !== EXIT.usage) throw err;
    }
    const mine = page?.commands.find((c) => c.command_id === sent.command_id);
    if (mine) {
      // An ack means the harness had it: delivered is shown even when the ack came first.
      if (shown === "accepted" && (mine.receipt !== "accepted" || mine.delivered_at)) {
        io.out("delivered\n");
        shown = "delivered";
      }
      if (mine.receipt === "applied") {
        io.out("applied\n");
        return;
      }
      if (mine.receipt === "rejected") {
        io.out(`rejected: ${mine.reason ?? "(no reason given)"}\n`);
        throw new CliError([`the harness rejected the ${command}`], EXIT.failed);
      }
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new CliError(
        [`timed out after ${timeout} s: the ${command} is still ${shown} (is the run's harness connected?)`],
        EXIT.usage,
      );
    }
    await sleep(Math.min(POLL_MS, left));
  }
}
