import { Demo, DemoError, type DemoEnd } from "../../lib/agents/demo";
import { ChipsClient, isChipsError } from "../../lib/agents/sdk";
import { resolveToken, resolveUrl } from "../config";
import { CliError, EXIT, UsageError } from "../errors";
import { problemLines } from "../http";
import type { CommandContext, Options } from "./context";

/** The options `chips demo` takes beside the common ones. */
export type DemoCliOptions = Options & { steps?: string; "step-ms"?: string; ask?: boolean };

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

function intOption(name: string, raw: string | undefined, dflt: number, min: number, max: number): number {
  if (raw === undefined) return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

/** A failure of the demo as the CLI reports it: refused (exit 1), unreachable (exit 2). */
export function demoFailure(err: unknown, url: string): CliError {
  if (err instanceof DemoError) return new CliError([`demo: error: ${err.message}`], EXIT.failed);
  if (isChipsError(err)) {
    if (err.code === "network_error")
      return new CliError(
        [`demo: cannot reach Chips at ${url} — is the server running (npm start)?`, `  (${err.detail})`],
        EXIT.usage,
      );
    return new CliError(["demo: the server refused:", ...problemLines(err.status, err, null)], EXIT.failed);
  }
  return new CliError([`demo: unexpected failure: ${(err as Error)?.stack ?? String(err)}`], EXIT.failed);
}

/**
 * `chips demo`: the demo harness as a real process on the SDK — starts a run in a room,
 * works through N pretend steps with status, steps and messages, and obeys pause, resume,
 * steer and cancel. SIGINT/SIGTERM finish the run `failed` ("demo stopped") and exit.
 */
export async function demo({ opts, args, env, io }: CommandContext): Promise<void> {
  if (args.length) throw new UsageError(`demo takes no arguments (got "${args[0]}")`);
  const o = opts as DemoCliOptions;
  const steps = intOption("steps", o.steps, 5, 1, 200);
  const stepMs = intOption("step-ms", o["step-ms"], 2000, 20, 3_600_000);
  const url = resolveUrl(opts, env);
  const client = new ChipsClient({
    url,
    token: resolveToken(opts, env),
    retry: { attempts: 6, baseMs: 250, maxMs: 4000, totalMs: 30_000 },
  });
  const harness = new Demo({
    client,
    spaceId: o.space,
    steps,
    stepMs,
    ask: o.ask === true,
    log: (line) => io.out(line + "\n"),
  });

  let signal: string | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signal) process.exit(SIGNAL_EXIT[sig] ?? 1); // a second signal: leave now
    signal = sig;
    io.err(`demo: ${sig}: finishing the run (again to quit at once)\n`);
    harness.stop("demo stopped");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let end: DemoEnd;
  try {
    end = await harness.start();
  } catch (err) {
    throw demoFailure(err, url);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    client.close();
  }
  if (end.outcome === "stopped")
    throw new CliError([`demo: stopped by ${signal ?? "a signal"}`], SIGNAL_EXIT[signal ?? ""] ?? EXIT.failed);
}
