import { resolveAdminToken, resolveUrl } from "../config";
import { UsageError } from "../errors";
import { call } from "../http";
import type { CommandContext } from "./context";

/** `chips login`: a fresh one-time login link (for another browser, or another person). */
export async function login({ opts, args, env, io }: CommandContext): Promise<void> {
  if (args.length) throw new UsageError(`login takes no arguments (got "${args[0]}")`);
  const body: Record<string, string> = {};
  if (opts.workspace !== undefined) body.workspace_id = opts.workspace;
  if (opts.space !== undefined) body.space_id = opts.space;
  const made = await call<{ workspace_id: string; url: string }>(
    { url: resolveUrl(opts, env), token: resolveAdminToken(opts, env) },
    "POST",
    "/api/v1/admin/login-links",
    JSON.stringify(body),
  );
  io.out(opts.json ? JSON.stringify(made) + "\n" : `${made.url}\n`);
}
