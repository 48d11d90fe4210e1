import { parseArgs } from "node:util";
import { events } from "./commands/events";
import { login } from "./commands/login";
import { init } from "./commands/init";
import { post } from "./commands/post";
import { runCommand } from "./commands/run";
import type { CommandContext, Options } from "./commands/context";
import { CliError, EXIT, UsageError } from "./errors";
import { USAGE } from "./help";
import { stdio, type Output } from "./output";

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  "data-dir": { type: "string" },
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  workspace: { type: "string" },
  space: { type: "string" },
  harness: { type: "string" },
  owner: { type: "string" },
  after: { type: "string" },
  limit: { type: "string" },
  timeout: { type: "string" },
  steps: { type: "string" },
  "step-ms": { type: "string" },
  ask: { type: "boolean" },
  // chips run start
  repo: { type: "string", multiple: true },
  prompt: { type: "string" },
  base: { type: "string" },
  agent: { type: "string" },
  profile: { type: "string" },
  check: { type: "string", multiple: true },
  secret: { type: "string", multiple: true },
  model: { type: "string" },
  provider: { type: "string" },
  instructions: { type: "string" },
  // chips people / harness
  role: { type: "string" },
  expires: { type: "string" },
  "many-uses": { type: "boolean" },
  // chips runner
  name: { type: "string" },
  "work-dir": { type: "string" },
  capacity: { type: "string" },
  config: { type: "string" },
  "codex-bin": { type: "string" },
  "codex-config": { type: "string", multiple: true },
  "codex-env": { type: "string", multiple: true },
  "codex-model": { type: "string" },
  "codex-models": { type: "string" },
  "claude-bin": { type: "string" },
  "claude-base-url": { type: "string" },
  "claude-env": { type: "string", multiple: true },
  "claude-model": { type: "string" },
  "claude-models": { type: "string" },
  bwrap: { type: "string" },
  "secrets-file": { type: "string" },
  cleanup: { type: "string" },
  "ask-seconds": { type: "string" },
  // chips connect / disconnect / bridge
  settings: { type: "string" },
  user: { type: "boolean" },
  "hold-seconds": { type: "string" },
  "stale-seconds": { type: "string" },
  project: { type: "string" },
  otel: { type: "boolean" },
  print: { type: "boolean" },
  // chips export / import
  format: { type: "string" },
  filter: { type: "string" },
  output: { type: "string" },
  otlp: { type: "string" },
  "otlp-headers": { type: "string" },
} as const;

const GLOBAL = ["url", "data-dir", "help"];

interface Command {
  run(ctx: CommandContext): Promise<void>;
  options: string[];
}

const COMMANDS: Record<string, Command> = {
  init: { run: init, options: ["workspace", "space", "harness", "owner", "json"] },
  post: { run: post, options: ["token"] },
  events: { run: events, options: ["token", "workspace", "space", "after", "limit"] },
  export: {
    run: async (ctx) => (await import("./commands/review")).exportRuns(ctx),
    options: ["token", "workspace", "format", "filter", "output", "otlp", "otlp-headers"],
  },
  import: { run: async (ctx) => (await import("./commands/review")).importRuns(ctx), options: ["token", "workspace"] },
  login: { run: login, options: ["workspace", "space", "json"] },
  run: {
    run: runCommand,
    options: [
      "token",
      "timeout",
      "json",
      "space",
      "repo",
      "prompt",
      "base",
      "agent",
      "profile",
      "check",
      "secret",
      "model",
      "provider",
      "instructions",
    ],
  },
  runner: {
    run: async (ctx) => (await import("./commands/runner")).runner(ctx),
    options: [
      "token",
      "json",
      "workspace",
      "name",
      "repo",
      "work-dir",
      "capacity",
      "config",
      "codex-bin",
      "codex-config",
      "codex-env",
      "codex-model",
      "codex-models",
      "claude-bin",
      "claude-base-url",
      "claude-env",
      "claude-model",
      "claude-models",
      "bwrap",
      "secrets-file",
      "cleanup",
      "ask-seconds",
    ],
  },
  connect: {
    run: async (ctx) => (await import("./commands/connect")).connect(ctx),
    options: [
      "token",
      "space",
      "settings",
      "user",
      "hold-seconds",
      "stale-seconds",
      "project",
      "otel",
      "print",
      "codex-bin",
      "ask-seconds",
    ],
  },
  bridge: {
    run: async (ctx) => (await import("./commands/bridge")).bridge(ctx),
    options: ["token", "space", "prompt"],
  },
  disconnect: {
    run: async (ctx) => (await import("./commands/connect")).disconnect(ctx),
    options: ["settings", "user", "otel"],
  },
  people: {
    run: async (ctx) => (await import("./commands/people")).people(ctx),
    options: ["token", "json", "workspace", "role", "expires", "many-uses"],
  },
  harness: {
    run: async (ctx) => (await import("./commands/people")).harness(ctx),
    options: ["token", "json", "workspace", "name", "harness"],
  },
  // Loaded on use: the SDK (Socket.IO, zod) would slow every other command's start.
  demo: {
    run: async (ctx) => (await import("./commands/demo")).demo(ctx),
    options: ["token", "space", "steps", "step-ms", "ask"],
  },
};

export interface RunDeps {
  env?: Record<string, string | undefined>;
  io?: Output;
  stdin?: () => Promise<string>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Run one `chips …` command line; answers the exit code. */
export async function run(argv: string[], deps: RunDeps = {}): Promise<number> {
  const io = deps.io ?? stdio;
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const opts = parsed.values as Options;
    const [name, ...args] = parsed.positionals;
    if (name === undefined || name === "help" || (opts.help && (name === undefined || COMMANDS[name]))) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const command = COMMANDS[name];
    if (!command) {
      io.err(`unknown command "${name}"\n\n${USAGE}`);
      return EXIT.usage;
    }
    const allowed = new Set([...GLOBAL, ...command.options]);
    const wrong = Object.keys(opts).find((k) => !allowed.has(k));
    if (wrong) throw new UsageError(`${name} does not take --${wrong}`);
    await command.run({ opts, args, env: deps.env ?? process.env, io, stdin: deps.stdin ?? readStdin });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CliError) {
      io.err(err.lines.join("\n") + "\n");
      return err.exitCode;
    }
    io.err(`chips: unexpected failure: ${(err as Error)?.stack ?? String(err)}\n`);
    return EXIT.failed;
  }
}
