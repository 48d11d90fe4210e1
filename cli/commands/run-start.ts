import { ulid } from "ulid";
import { resolvePersonToken, resolveUrl } from "../config";
import { UsageError } from "../errors";
import { call, type Client } from "../http";
import type { CommandContext, Options } from "./context";

/** The options of `chips run start`. */
export type RunStartOptions = Options & {
  repo?: string[];
  prompt?: string;
  base?: string;
  agent?: string;
  profile?: string;
  check?: string[];
  secret?: string[];
  model?: string;
  provider?: string;
  instructions?: string;
};

/**
 * `chips run start --repo NAME --prompt TEXT …`: queue a run for a runner (POST /api/v1/runs)
 * as a person, in --space or the workspace's first room; prints the run id, then the room.
 */
export async function runStart({ opts, args, env, io }: CommandContext): Promise<void> {
  const o = opts as RunStartOptions;
  if (args.length)
    throw new UsageError(`run start takes options only (got "${args[0]}"; quote the prompt: --prompt "…")`);
  if (o.repo && o.repo.length > 1) throw new UsageError("run start takes one --repo");
  const repo = o.repo?.[0];
  if (!repo) throw new UsageError("run start needs --repo NAME (a repository on a runner's allowlist)");
  if (!o.prompt) throw new UsageError('run start needs --prompt "what the agent should do"');
  const client: Client = { url: resolveUrl(opts, env), token: resolvePersonToken(opts, env) };
  const me = await call<{ workspace_id: string; spaces?: { id: string }[] }>(client, "GET", "/api/v1/me");
  const space = o.space ?? me.spaces?.[0]?.id;
  if (!space) throw new UsageError("this workspace has no room: pass --space");
  const body = {
    space_id: space,
    prompt: o.prompt,
    repository: repo,
    ...(o.base ? { base_branch: o.base } : {}),
    ...(o.agent ? { agent: o.agent } : {}),
    ...(o.profile ? { profile: o.profile } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.provider ? { provider: o.provider } : {}),
    ...(o.instructions ? { instructions: o.instructions } : {}),
    required_commands: o.check ?? [],
    secrets: o.secret ?? [],
    idempotency_key: `cli-${ulid()}`,
  };
  const r = await call<{ run_id: string }>(client, "POST", "/api/v1/runs", JSON.stringify(body));
  if (opts.json) {
    io.out(JSON.stringify({ run_id: r.run_id, room_url: `${client.url}/w/${me.workspace_id}/r/${space}` }) + "\n");
    return;
  }
  io.out(`${r.run_id}\n`);
  io.out(
    `queued: it starts when a runner with "${repo}" on its allowlist takes it — watch it at ${client.url}/w/${me.workspace_id}/r/${space}\n`,
  );
}
