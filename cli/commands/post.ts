import fs from "node:fs";
import { resolveToken, resolveUrl } from "../config";
import { CliError, UsageError } from "../errors";
import { call } from "../http";
import { jsonLines } from "../output";
import type { CommandContext } from "./context";

/** The request body for what the file holds: one event, a batch, or an array (made a batch). */
function toBody(text: string, source: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError([`error invalid_json: ${source} is not valid JSON (${(err as Error).message})`]);
  }
  if (Array.isArray(value)) return { events: value };
  if (value === null || typeof value !== "object") {
    throw new CliError([
      `error invalid_json: ${source} must hold an event object, {"events": [...]} or an array of events`,
    ]);
  }
  return value;
}

/** `chips post FILE|-`: send one event or a batch, print each stored event as a JSON line. */
export async function post({ opts, args, env, io, stdin }: CommandContext): Promise<void> {
  if (args.length !== 1)
    throw new UsageError(args.length ? "post takes one FILE (or - for stdin)" : "post needs a FILE (or - for stdin)");
  const file = args[0];
  let text: string;
  if (file === "-") {
    text = await stdin();
  } else {
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  const body = toBody(text, file === "-" ? "stdin" : file);
  const client = { url: resolveUrl(opts, env), token: resolveToken(opts, env) };
  const answer = await call<{ events?: unknown[] }>(client, "POST", "/api/v1/events", JSON.stringify(body));
  io.out(jsonLines(answer.events ?? []));
}
