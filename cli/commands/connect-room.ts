import os from "node:os";
import path from "node:path";
import { resolveToken, resolveUrl } from "../config";
import { CliError } from "../errors";
import { call } from "../http";
import type { CommandContext, Options } from "./context";

/**
 * What every `chips connect` agent and `chips bridge` share: the options, and the harness and
 * room a token and --space name. Its own file so that connect.ts can load an agent's module
 * lazily without that module importing connect.ts back.
 */

/** The options of `chips connect` / `chips disconnect`. */
export type ConnectOptions = Options & {
  settings?: string;
  user?: boolean;
  "hold-seconds"?: string;
  "stale-seconds"?: string;
  otel?: boolean;
  print?: boolean;
  "ask-seconds"?: string;
};

interface Me {
  kind: string;
  id: string;
  workspace_id: string;
  spaces: { id: string; name: string }[];
}

/** The harness behind the token, and the room chosen by --space (id or name; default the first). */
export async function harnessAndRoom(
  ctx: CommandContext,
): Promise<{ url: string; token: string; me: Me; space: { id: string; name: string } }> {
  const url = resolveUrl(ctx.opts, ctx.env);
  const token = resolveToken(ctx.opts, ctx.env);
  const me = await call<Me>({ url, token }, "GET", "/api/v1/me");
  if (me.kind !== "harness")
    throw new CliError([`error: this token is a ${me.kind}'s; connect needs a harness token (chips init prints one)`]);
  const want = ctx.opts.space;
  const space = want
    ? me.spaces.find((s) => s.id.toUpperCase() === want.toUpperCase() || s.name === want)
    : me.spaces[0];
  if (!space)
    throw new CliError([
      want
        ? `error: no room "${want}" in ${me.workspace_id} (rooms: ${me.spaces.map((s) => s.name).join(", ") || "none"})`
        : `error: ${me.workspace_id} has no room yet`,
    ]);
  return { url, token, me, space };
}

/** Which Claude Code settings file: --settings, --user (the user's), else the project's own local one. */
export function claudeSettingsFile(o: ConnectOptions, env: Record<string, string | undefined>): string {
  if (o.settings) return path.resolve(o.settings);
  if (o.user) return path.join(env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), ".claude"), "settings.json");
  return path.resolve(".claude", "settings.local.json");
}
