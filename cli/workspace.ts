import { resolveAdminToken, resolveToken, type GlobalOptions } from "./config";
import { CliError, EXIT, UsageError } from "./errors";
import { call, type Client } from "./http";

type Env = Record<string, string | undefined>;

/** Who manages a workspace: the token given (an owner's person token), else the admin token of the data dir. */
export const managerToken = (opts: GlobalOptions, env: Env) => opts.token?.trim() || resolveAdminToken(opts, env);

/** The server's default workspace: that of its default harness token (CHIPS_TOKEN, else the data dir's). */
export async function defaultWorkspace(opts: GlobalOptions, env: Env, url: string): Promise<string> {
  const token = resolveToken({ ...opts, token: undefined }, env);
  const me = await call<{ workspace_id?: string }>({ url, token }, "GET", "/api/v1/me");
  if (!me.workspace_id)
    throw new UsageError("the default token belongs to no workspace: pass --workspace <workspace id>");
  return me.workspace_id;
}

/**
 * The workspace a command acts in: its credential's own. A person, harness or runner token
 * belongs to one workspace — `/api/v1/me` with that token says which — so `--workspace` may
 * only repeat it, and the data directory's default harness never overrides it. The admin
 * token belongs to none: it takes `--workspace`, else `fallback` (the default workspace).
 */
export async function workspaceFor(
  auth: Client,
  given: string | undefined,
  fallback?: () => Promise<string>,
): Promise<string> {
  const me = await call<{ kind?: string; workspace_id?: string }>(auth, "GET", "/api/v1/me");
  if (me.workspace_id) {
    // Ids compare case-insensitively: the server reads its ids so (lib/core/protocol/ids.ts).
    if (given !== undefined && given.toUpperCase() !== me.workspace_id.toUpperCase())
      throw new CliError(
        [
          `error: --workspace ${given} is not this token's workspace: the ${me.kind ?? "given"} token belongs to ${me.workspace_id}`,
          "  leave --workspace out (the token decides), or pass a token of that workspace",
        ],
        EXIT.usage,
      );
    return me.workspace_id;
  }
  if (given !== undefined) return given;
  if (fallback) return fallback();
  throw new UsageError("the admin token belongs to no workspace: pass --workspace <workspace id>");
}
