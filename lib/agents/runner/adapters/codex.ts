import fs from "node:fs";
import path from "node:path";
import type { PermissionProfile } from "@/lib/core/protocol/runner-contract";
import { cliVersion, packageBin } from "./cli";
import type { Adapter, AgentEvent, JobContext, LaunchSpec } from "../adapter";
import { ASK_HOOK, askSocketPath } from "../ask-socket";

/** How this runner reaches Codex's model: extra `-c` config and environment (README: "Runner"). */
export interface CodexConfig {
  /** The `codex` binary (default: `codex` on PATH, or this package's node_modules/.bin/codex). */
  bin?: string;
  /** Extra `-c key=value` overrides, e.g. `model_provider=…`, `model_providers.<id>.base_url=…`. */
  config?: string[];
  /** Extra environment for the CLI (an API key the provider's `env_key` names…). */
  env?: Record<string, string>;
  /** The model when the start request names none. */
  model?: string;
  /** More models a start may pick ([RN5]: advertised in the hello, offered by the start form). */
  models?: string[];
  /** Restrict the profiles this runner offers (default: both, when the sandbox works here). */
  profiles?: PermissionProfile[];
}

const SANDBOX: Record<PermissionProfile, string> = {
  "read-only": "read-only",
  "workspace-write": "workspace-write",
  ask: "workspace-write", // [RN7] an answer decides a call, never the sandbox
};

/** The hook's config in the job's own `CODEX_HOME` ([RN9]): every tool call first asks the job. */
function hookConfig(job: JobContext): string {
  const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, ASK_HOOK, askSocketPath(job.jobDir), String(job.askSeconds)].map(sh).join(" ");
  return [
    "# Written by the Chips runner for this job: each tool call waits for the job's answer.",
    "[[hooks.PreToolUse]]",
    'matcher = ".*"',
    "[[hooks.PreToolUse.hooks]]",
    'type = "command"',
    `command = ${JSON.stringify(command)}`,
    // Past its timeout a Codex hook fails OPEN: the hook denies on its own well before this.
    `timeout = ${job.askSeconds + 60}`,
    "",
  ].join("\n");
}

export const defaultCodexBin = () => packageBin("codex");

/**
 * Codex CLI (`codex exec --json`, docs/RUNNERS.md). Profiles map to Codex's own `-s` sandbox
 * (bubblewrap + seccomp), never wider: `danger-full-access` and the bypass flag are never
 * used. `workspace-write` also closes /tmp and $TMPDIR, so the worktree is the one place
 * the agent writes; Codex's sandbox keeps the network off.
 */
export class CodexAdapter implements Adapter {
  readonly agent = "codex" as const;
  /**
   * [RN9] Codex's shell tool reaches the hook as `Bash` (apply_patch included): each waits for a
   * person. So does its question tool, `request_user_input`, which `codex exec` answers
   * "unavailable" by itself: the hook asks the room and refuses the call with the answers.
   */
  readonly askPolicy = {
    allow: "*",
    ask: ["Bash", "request_user_input"],
    via: "hook",
    question: { tool: "request_user_input", answer: "reason" },
  } as const;
  private readonly bin: string;

  constructor(private cfg: CodexConfig = {}) {
    this.bin = cfg.bin ?? defaultCodexBin();
  }

  detect(): Promise<string | null> {
    return cliVersion(this.bin, /^codex-cli\s*/);
  }

  async profiles(): Promise<PermissionProfile[]> {
    return this.cfg.profiles ?? ["read-only", "workspace-write", "ask"];
  }

  models(): string[] {
    return [...new Set([this.cfg.model, ...(this.cfg.models ?? [])].filter((m): m is string => !!m))];
  }

  /** [RN5] The providers this runner's `-c` overrides name: `model_provider=<id>` and `model_providers.<id>.…`. */
  providers(): string[] {
    const ids = (this.cfg.config ?? []).map(
      (kv) =>
        /^model_provider\s*=\s*"?([A-Za-z0-9_-]+)"?\s*$/.exec(kv)?.[1] ??
        /^model_providers\.([A-Za-z0-9_-]+)\./.exec(kv)?.[1],
    );
    return [...new Set(ids.filter((id): id is string => !!id))];
  }

  async prepare(job: JobContext): Promise<void> {
    const home = path.join(job.jobDir, "codex-home");
    await fs.promises.mkdir(path.join(job.jobDir, "tmp"), { recursive: true, mode: 0o700 });
    await fs.promises.mkdir(home, { recursive: true, mode: 0o700 });
    // Codex reads $CODEX_HOME/AGENTS.md as global guidance: the worktree stays the repo's own.
    await fs.promises.writeFile(path.join(home, "AGENTS.md"), job.guidance, { mode: 0o600 });
    if (job.profile === "ask")
      await fs.promises.writeFile(path.join(home, "config.toml"), hookConfig(job), { mode: 0o600 });
  }

  private flags(job: JobContext): string[] {
    const model = job.model ?? this.cfg.model;
    return [
      "--json",
      "-s",
      SANDBOX[job.profile],
      "-c",
      "tools.update_plan.enabled=true", // the plan tool: todo_list items become the run's dots
      "-c",
      "sandbox_workspace_write.exclude_slash_tmp=true",
      "-c",
      "sandbox_workspace_write.exclude_tmpdir_env_var=true",
      ...(this.cfg.config ?? []).flatMap((kv) => ["-c", kv]),
      // [RN5] after the runner's own overrides: the last `-c` of a key wins.
      ...(job.provider ? ["-c", `model_provider=${job.provider}`] : []),
      ...(job.instructions ? ["-c", `developer_instructions=${tomlString(job.instructions)}`] : []),
      ...(model ? ["-m", model] : []),
      // [RN9] The runner wrote the one hook there is ($CODEX_HOME); Codex loads no hook of an untrusted repository.
      ...(job.profile === "ask" ? ["--dangerously-bypass-hook-trust"] : []),
    ];
  }

  private env(job: JobContext): Record<string, string> {
    return {
      ...(this.cfg.env ?? {}),
      CODEX_HOME: path.join(job.jobDir, "codex-home"),
      TMPDIR: path.join(job.jobDir, "tmp"),
    };
  }

  start(job: JobContext, prompt: string): LaunchSpec {
    return { cmd: this.bin, args: ["exec", ...this.flags(job), "--", prompt], env: this.env(job) };
  }

  resume(job: JobContext, sessionId: string, text: string): LaunchSpec {
    // `-` would mean "read stdin": a guidance text never starts the argument with a dash.
    const safe = text.startsWith("-") ? ` ${text}` : text;
    return { cmd: this.bin, args: ["exec", ...this.flags(job), "resume", sessionId, safe], env: this.env(job) };
  }

  parse(line: string): AgentEvent[] {
    let e: CodexLine;
    try {
      e = JSON.parse(line) as CodexLine;
    } catch {
      return [];
    }
    switch (e.type) {
      case "thread.started":
        return typeof e.thread_id === "string" ? [{ type: "session", id: e.thread_id }] : [];
      case "turn.completed":
        return [...(e.usage ? [{ type: "usage" as const, usage: usageOf(e.usage) }] : []), { type: "turn_completed" }];
      case "turn.failed":
        return [{ type: "turn_failed", message: e.error?.message ?? "the turn failed" }];
      case "error":
        return [{ type: "notice", message: `codex: ${e.message ?? "error"}` }];
      case "item.started":
      case "item.updated":
      case "item.completed":
        if (!e.item) return [];
        return [
          ...itemEvents(e.item, e.type === "item.completed" ? "completed" : "started"),
          ...(e.type === "item.updated" ? [] : callEvents(e.item, e.type === "item.completed")),
        ];
      default:
        return [];
    }
  }
}

interface CodexItem {
  id: string;
  type: string;
  text?: string;
  message?: string;
  command?: string;
  aggregated_output?: string;
  exit_code?: number | null;
  changes?: Array<{ path: string; kind: string }>;
  items?: Array<{ text: string; completed: boolean }>;
  status?: string;
  server?: string;
  tool?: string;
  arguments?: unknown;
  result?: unknown;
  error?: { message?: string } | string | null;
  query?: string;
}
interface CodexLine {
  type: string;
  thread_id?: string;
  usage?: { input_tokens?: number; cached_input_tokens?: number; output_tokens?: number };
  error?: { message?: string };
  message?: string;
  item?: CodexItem;
}

function itemEvents(item: CodexItem, phase: "started" | "completed"): AgentEvent[] {
  switch (item.type) {
    case "todo_list":
      return [
        { type: "plan", items: (item.items ?? []).map((i) => ({ text: String(i.text), completed: !!i.completed })) },
      ];
    case "command_execution":
      return [
        {
          type: "command",
          id: item.id,
          phase,
          command: unwrapShell(item.command ?? ""),
          ...(phase === "completed" ? { output: item.aggregated_output ?? "", exitCode: item.exit_code ?? null } : {}),
        },
      ];
    case "file_change":
      return [{ type: "file_change", id: item.id, phase, paths: (item.changes ?? []).map((c) => c.path) }];
    case "agent_message":
      return phase === "completed" && item.text ? [{ type: "message", text: item.text }] : [];
    case "reasoning":
      return item.text ? [{ type: "reasoning", text: item.text }] : [];
    case "error":
      return [{ type: "notice", message: `codex: ${item.message ?? "error"}` }];
    default:
      return [];
  }
}

/**
 * A TOML basic string of any text, for a `-c key=value` override (Codex parses the value as
 * TOML): quotes, backslashes and every control character escaped; a lone surrogate, which
 * no TOML string may hold, becomes U+FFFD.
 */
function tomlString(s: string): string {
  const wellFormed = s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
  let out = '"';
  for (const ch of wellFormed) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * A Codex item as a tool call ([TOOL3]): commands, patches, MCP tools, web searches. Item ids
 * (`item_3`) are unique only within one `codex exec` (a resume starts over), so they are
 * marked per launch. Every end says what the call was too: a patch is reported only done.
 */
function callEvents(item: CodexItem, done: boolean): AgentEvent[] {
  const what = callOf(item);
  if (!what) return [];
  const base = { id: item.id, perLaunch: true, ...what };
  if (!done) return [{ type: "call_started", ...base }];
  const failed = item.status === "failed" || (typeof item.exit_code === "number" && item.exit_code !== 0);
  const error = typeof item.error === "string" ? item.error : item.error?.message;
  return [
    {
      type: "call_finished",
      ...base,
      outcome: item.status === "declined" ? "denied" : failed || error ? "failed" : "ok",
      ...(item.type === "command_execution"
        ? { exitCode: item.exit_code ?? null, output: item.aggregated_output ?? "" }
        : {}),
      ...(item.type === "file_change" ? { files: what.paths ?? [] } : {}),
      ...(item.type === "mcp_tool_call" && item.result !== undefined ? { output: JSON.stringify(item.result) } : {}),
      ...(error ? { error } : {}),
    },
  ];
}

function callOf(item: CodexItem): { tool: string; summary: string; input?: string; paths?: string[] } | null {
  switch (item.type) {
    case "command_execution": {
      const command = unwrapShell(item.command ?? "");
      return { tool: "exec_command", summary: command, input: command };
    }
    case "file_change": {
      const paths = (item.changes ?? []).map((c) => c.path);
      return { tool: "apply_patch", summary: `apply_patch ${paths.join(", ")}`, paths };
    }
    case "mcp_tool_call": {
      const args = item.arguments === undefined ? "" : JSON.stringify(item.arguments);
      const tool = `${item.server ?? "mcp"}.${item.tool ?? "tool"}`;
      return { tool, summary: `${tool} ${args}`, ...(args ? { input: args } : {}) };
    }
    case "web_search":
      return { tool: "web_search", summary: item.query ?? "web search" };
    default:
      return null;
  }
}

/** `/bin/bash -lc 'npm test'` → `npm test`: what the agent asked for, as people read it. */
function unwrapShell(cmd: string): string {
  const single = /^\/bin\/(?:ba)?sh -l?c '([\s\S]*)'$/.exec(cmd);
  if (single) return single[1].replace(/'\\''/g, "'");
  const double = /^\/bin\/(?:ba)?sh -l?c "([\s\S]*)"$/.exec(cmd);
  return double ? double[1].replace(/\\(["\\$`])/g, "$1") : cmd;
}

function usageOf(u: NonNullable<CodexLine["usage"]>) {
  return {
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    ...(u.cached_input_tokens !== undefined ? { cached_input_tokens: u.cached_input_tokens } : {}),
  };
}
