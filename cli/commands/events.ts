import { resolveToken, resolveUrl } from "../config";
import { CliError, UsageError } from "../errors";
import { call } from "../http";
import { workspaceFor } from "../workspace";
import { jsonLines } from "../output";
import type { CommandContext } from "./context";

const PAGE_MAX = 1000;

function intOption(name: string, raw: string | undefined, dflt: number, min: number, max: number): number {
  if (raw === undefined) return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

interface Page {
  events: { seq?: number }[];
  next_after: number;
}

/**
 * `chips events [--workspace WS] [--after N]`: every event of the token's workspace after seq N
 * as JSON lines, in seq order, following `next_after` page by page until a page comes back short.
 */
export async function events({ opts, args, env, io }: CommandContext): Promise<void> {
  if (args.length) throw new UsageError(`events takes no arguments (got "${args[0]}")`);
  let after = intOption("after", opts.after, 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intOption("limit", opts.limit, PAGE_MAX, 1, PAGE_MAX);
  const client = { url: resolveUrl(opts, env), token: resolveToken(opts, env) };
  const base = `/api/v1/workspaces/${encodeURIComponent(await workspaceFor(client, opts.workspace))}/events`;
  const space = opts.space ? `&space=${encodeURIComponent(opts.space)}` : "";

  for (;;) {
    const page = await call<Page>(client, "GET", `${base}?after=${after}&limit=${limit}${space}`);
    if (!Array.isArray(page.events)) throw new CliError(["error bad_response: the events page has no events array"]);
    if (page.events.length) io.out(jsonLines(page.events));
    if (page.events.length < limit) return;
    if (!(page.next_after > after)) throw new CliError([`error bad_response: next_after did not move past ${after}`]);
    after = page.next_after;
  }
}
