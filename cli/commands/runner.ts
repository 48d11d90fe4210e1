import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveToken, resolveUrl } from "../config";
import { CliError, EXIT, UsageError } from "../errors";
import { call } from "../http";
import { defaultWorkspace, managerToken, workspaceFor } from "../workspace";
import type { CommandContext, Options } from "./context";
import { ASK_PROFILE_SECONDS, type PermissionProfile } from "@/lib/core/protocol/runner-contract";

/** The options of `chips runner`. */
export type RunnerCliOptions = Options & {
  name?: string;
  repo?: string[];
  "work-dir"?: string;
  capacity?: string;
  config?: string;
  "codex-bin"?: string;
  "codex-config"?: string[];
  "codex-env"?: string[];
  "codex-model"?: string;
  "codex-models"?: string;
  "claude-bin"?: string;
  "claude-base-url"?: string;
  "claude-env"?: string[];
  "claude-model"?: string;
  "claude-models"?: string;
  bwrap?: string;
  "secrets-file"?: string;
  cleanup?: string;
  "ask-seconds"?: string;
};

/** The runner's config file (JSON): everything the flags say, flags win. */
interface RunnerFile {
  name?: string;
  repositories?: Record<string, string>;
  workDir?: string;
  capacity?: number;
  cleanup?: "keep" | "remove";
  secretsFile?: string;
  askSeconds?: number;
  codex?: {
    bin?: string;
    config?: string[];
    env?: Record<string, string>;
    model?: string;
    models?: string[];
    profiles?: PermissionProfile[];
  };
  claude?: {
    bin?: string;
    baseUrl?: string;
    env?: Record<string, string>;
    args?: string[];
    model?: string;
    models?: string[];
    bwrap?: string;
    profiles?: PermissionProfile[];
  };
}

function pairs(list: string[] | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const at = item.indexOf("=");
    if (at <= 0) throw new UsageError(`${what} takes NAME=VALUE (got "${item}")`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

/** `a, b,c` → `["a", "b", "c"]`. */
const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** KEY=VALUE lines (# comments): secrets stay in a file, never on the command line (ps shows it). */
export function readSecretsFile(file: string): Record<string, string> {
  const text = fs.readFileSync(file, "utf8");
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    const at = t.indexOf("=");
    if (at <= 0) throw new UsageError(`${file}: expected NAME=VALUE lines`);
    out[t.slice(0, at).trim()] = t.slice(at + 1);
  }
  return out;
}

/**
 * `chips runner token [--name N] [--workspace WS] [--token OWNER]`: mint a runner identity (the
 * admin, or an owner's person token, in that token's workspace);
 * `chips runner --token T --repo NAME=PATH …`: dial in and take work until stopped.
 */
export async function runner(ctx: CommandContext): Promise<void> {
  const { opts, args, env, io } = ctx;
  const o = opts as RunnerCliOptions;
  if (args[0] === "token") return mintToken(ctx);
  if (args.length) throw new UsageError(`runner takes "token" or options only (got "${args[0]}")`);

  const file: RunnerFile = o.config ? JSON.parse(fs.readFileSync(o.config, "utf8")) : {};
  const repositories = { ...(file.repositories ?? {}), ...pairs(o.repo, "--repo") };
  if (!Object.keys(repositories).length)
    throw new UsageError("runner needs at least one --repo NAME=PATH (its allowlist)");
  for (const [name, dir] of Object.entries(repositories)) {
    repositories[name] = path.resolve(dir);
    if (!fs.existsSync(path.join(repositories[name], ".git")))
      throw new UsageError(`--repo ${name}: ${repositories[name]} is not a git repository`);
  }
  const capacity = Number(o.capacity ?? file.capacity ?? 2);
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > 100)
    throw new UsageError("--capacity must be a whole number from 1 to 100");
  const cleanup = (o.cleanup ?? file.cleanup ?? "keep") as "keep" | "remove";
  if (cleanup !== "keep" && cleanup !== "remove") throw new UsageError("--cleanup is keep or remove");
  const secretsFile = o["secrets-file"] ?? file.secretsFile;
  const askSeconds = Number(o["ask-seconds"] ?? file.askSeconds ?? ASK_PROFILE_SECONDS);
  if (!Number.isInteger(askSeconds) || askSeconds < 1 || askSeconds > 86_400)
    throw new UsageError("--ask-seconds must be a whole number from 1 to 86400");

  const { Runner } = await import("@/lib/agents/runner/runner");
  const { CodexAdapter } = await import("@/lib/agents/runner/adapters/codex");
  const codex = new CodexAdapter({
    ...file.codex,
    ...(o["codex-bin"] ? { bin: o["codex-bin"] } : {}),
    config: [...(file.codex?.config ?? []), ...(o["codex-config"] ?? [])],
    env: { ...(file.codex?.env ?? {}), ...pairs(o["codex-env"], "--codex-env") },
    ...(o["codex-model"] ? { model: o["codex-model"] } : {}),
    ...(o["codex-models"] ? { models: list(o["codex-models"]) } : {}),
  });
  const { ClaudeAdapter } = await import("@/lib/agents/runner/adapters/claude");
  const claude = new ClaudeAdapter({
    ...file.claude,
    ...(o["claude-bin"] ? { bin: o["claude-bin"] } : {}),
    ...(o["claude-base-url"] ? { baseUrl: o["claude-base-url"] } : {}),
    env: { ...(file.claude?.env ?? {}), ...pairs(o["claude-env"], "--claude-env") },
    ...(o["claude-model"] ? { model: o["claude-model"] } : {}),
    ...(o["claude-models"] ? { models: list(o["claude-models"]) } : {}),
    ...(o.bwrap ? { bwrap: o.bwrap } : {}),
  });
  const r = new Runner({
    url: resolveUrl(opts, env),
    token: resolveToken(opts, env),
    name: o.name ?? file.name ?? `runner on ${os.hostname()}`,
    repositories,
    workDir: path.resolve(o["work-dir"] ?? file.workDir ?? path.join(os.homedir(), ".chips-runner")),
    adapters: [codex, claude],
    secrets: secretsFile ? readSecretsFile(secretsFile) : {},
    capacity,
    cleanup,
    askSeconds,
    log: (line) => io.out(line + "\n"),
  });
  try {
    await r.connect();
  } catch (e) {
    r.close().catch(() => {});
    throw new CliError([`error: ${(e as Error).message}`], EXIT.failed);
  }
  io.out(
    `taking work for ${Object.keys(repositories).join(", ")}; Ctrl-C stops (running jobs are stopped, their worktrees kept)\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => void r.close().then(resolve, resolve);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

async function mintToken({ opts, env, io }: CommandContext) {
  const o = opts as RunnerCliOptions;
  const url = resolveUrl(opts, env);
  const auth = { url, token: managerToken(opts, env) };
  const ws = await workspaceFor(auth, opts.workspace, () => defaultWorkspace(opts, env, url));
  const made = await call<{ harness_id: string; token: string }>(
    auth,
    "POST",
    `/api/v1/workspaces/${encodeURIComponent(ws)}/harnesses`,
    JSON.stringify({ name: o.name ?? "runner", kind: "runner" }),
  );
  if (opts.json) {
    io.out(JSON.stringify({ runner_id: made.harness_id, token: made.token, workspace_id: ws }) + "\n");
    return;
  }
  io.out(`runner ${made.harness_id} in ${ws}\n`);
  io.out(`token (shown once): ${made.token}\n`);
  io.out(`start it: npx chips runner --url ${url} --token <token> --repo NAME=/path/to/repo\n`);
}
