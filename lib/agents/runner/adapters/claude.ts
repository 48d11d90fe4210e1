import fs from "node:fs";
import path from "node:path";
import type { PermissionProfile } from "@/lib/core/protocol/runner-contract";
import { clipUtf8 } from "@/lib/core/protocol/clip";
import { cliVersion, packageBin } from "./cli";
import type { Adapter, AgentEvent, JobContext, LaunchSpec, Verdict } from "../adapter";
import { DEFAULT_BWRAP, endpointOf, gitDirsOf, probeSandbox, sandboxed } from "../sandbox";
import { claudeCall, editedFile, exitCodeOf, failedOutcome, resultText } from "./claude-calls";

/** How much of a failed tool's output or of Claude's error a notice or a failure quotes, in UTF-8 bytes. */
const QUOTED_BYTES = 2000;

/** How this runner reaches Claude Code's model, and where its sandbox comes from (README: "Runner"). */
export interface ClaudeConfig {
  /** The `claude` binary (default: this package's node_modules/.bin/claude, else `claude` on PATH). */
  bin?: string;
  /** The model endpoint (else `env.ANTHROPIC_BASE_URL`, else https://api.anthropic.com): the one address the sandbox reaches. */
  baseUrl?: string;
  /** Extra environment for the CLI: `ANTHROPIC_API_KEY` (a job gets only the runner's allowlisted variables)… */
  env?: Record<string, string>;
  /** Extra command-line arguments, after the runner's own. */
  args?: string[];
  /** The model when the start request names none. */
  model?: string;
  /** More models a start may pick ([RN5]: advertised in the hello, offered by the start form). */
  models?: string[];
  /** bubblewrap (default /usr/bin/bwrap). Missing or unusable: no profile is offered, every run is refused. */
  bwrap?: string;
  /** Restrict the profiles this runner offers (default: both, when the sandbox works here). */
  profiles?: PermissionProfile[];
}

/**
 * The tools a run may use without asking (in `-p` mode nobody is there to answer: any other
 * tool is denied, which fails the run). Sub-agents (Task/Agent) run in the same sandbox.
 */
const TOOLS = ["Bash", "Edit", "Write", "NotebookEdit", "Read", "Glob", "Grep", "TodoWrite", "Task", "Agent"];
/** [RN6] The `ask` profile: reading, searching and planning run at once; these wait for a person. */
const READS = ["Read", "Glob", "Grep", "TodoWrite", "Task", "Agent"];
const ASKED = ["Bash", "Edit", "Write", "MultiEdit", "NotebookEdit", "AskUserQuestion"];

export const defaultClaudeBin = () => packageBin("claude");

/**
 * Claude Code (`claude -p … --output-format stream-json --verbose`, docs/RUNNERS.md), always
 * inside the runner's own sandbox (lib/agents/runner/sandbox.ts) — never with
 * `--dangerously-skip-permissions`. Its config dir (session transcripts, the guidance as
 * CLAUDE.md) is per job; resume and steering continue the same session with `--resume`.
 */
export class ClaudeAdapter implements Adapter {
  readonly agent = "claude" as const;
  readonly askPolicy = { allow: READS, ask: ASKED, via: "stdio" } as const;
  private readonly bin: string;
  private readonly bwrap: string;
  private sandbox: Promise<string | null> | null = null;

  constructor(private cfg: ClaudeConfig = {}) {
    this.bin = cfg.bin ?? defaultClaudeBin();
    this.bwrap = cfg.bwrap ?? DEFAULT_BWRAP;
  }

  detect(): Promise<string | null> {
    return cliVersion(this.bin, /\s*\(Claude Code\)\s*$/);
  }

  /** Why the sandbox cannot be built here (null: it can). Probed once. */
  sandboxProblem(): Promise<string | null> {
    this.sandbox ??= probeSandbox(this.bwrap);
    return this.sandbox;
  }

  async profiles(): Promise<PermissionProfile[]> {
    if (await this.sandboxProblem()) return []; // [RN1]: refused, never run unsandboxed
    return this.cfg.profiles ?? ["read-only", "workspace-write", "ask"];
  }

  models(): string[] {
    return [...new Set([this.cfg.model, ...(this.cfg.models ?? [])].filter((m): m is string => !!m))];
  }

  /** [RN5] None: Claude Code's endpoint is this runner's configuration (`baseUrl`, its environment), not a start's choice. */
  providers(): string[] {
    return [];
  }

  private configDir(job: JobContext) {
    return path.join(job.jobDir, "claude-config");
  }

  async prepare(job: JobContext): Promise<void> {
    await fs.promises.mkdir(this.configDir(job), { recursive: true, mode: 0o700 });
    // $CLAUDE_CONFIG_DIR/CLAUDE.md is read as the user's own guidance: the worktree stays the repo's own.
    const guidance = job.guidance;
    await fs.promises.writeFile(path.join(this.configDir(job), "CLAUDE.md"), guidance, { mode: 0o600 });
  }

  private launch(job: JobContext, prompt: string, extra: string[]): LaunchSpec {
    const model = job.model ?? this.cfg.model;
    const endpoint = this.cfg.baseUrl ?? this.cfg.env?.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com";
    // `-p` takes the prompt as its own value; a text starting with a dash would read as a flag.
    const text = prompt.startsWith("-") ? ` ${prompt}` : prompt;
    // [RN6] `ask`: the prompt and the answers go in on stdin (the SDK's control protocol), and
    // every call outside the reads comes out as a `can_use_tool` request — stdin and stdout
    // are the one channel that crosses the sandbox without opening anything.
    const asks = job.profile === "ask";
    const input = asks
      ? ["--input-format", "stream-json", "--permission-prompt-tool", "stdio", "--allowedTools", READS.join(",")]
      : [text, "--allowedTools", TOOLS.join(",")];
    const inner: LaunchSpec = {
      cmd: this.bin,
      args: [
        "-p",
        ...input,
        "--output-format",
        "stream-json",
        "--verbose",
        ...(model ? ["--model", model] : []),
        // [RN5] `=`: the value is one argument even when it starts with a dash.
        ...(job.instructions ? [`--append-system-prompt=${job.instructions}`] : []),
        ...extra,
        ...(this.cfg.args ?? []),
      ],
      env: {
        ...(this.cfg.env ?? {}),
        CLAUDE_CONFIG_DIR: this.configDir(job),
        ANTHROPIC_BASE_URL: endpointOf(endpoint).inside,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
      },
    };
    if (asks)
      inner.stdin = [
        JSON.stringify({ type: "control_request", request_id: "chips_init", request: { subtype: "initialize" } }),
        JSON.stringify({
          type: "user",
          message: { role: "user", content: prompt },
          parent_tool_use_id: null,
          session_id: "",
        }),
      ];
    const bin = path.isAbsolute(this.bin) ? [this.bin, fs.realpathSync(this.bin)] : [];
    return sandboxed(inner, {
      bwrap: this.bwrap,
      profile: job.profile,
      worktree: job.worktree,
      writable: [this.configDir(job)],
      readable: [...gitDirsOf(job.worktree), ...bin],
      endpoint,
      netDir: path.join(job.jobDir, "net"),
    });
  }

  start(job: JobContext, prompt: string): LaunchSpec {
    return this.launch(job, prompt, []);
  }

  resume(job: JobContext, sessionId: string, text: string): LaunchSpec {
    return this.launch(job, text, ["--resume", sessionId]);
  }

  /** Tool calls seen, by id: a result names only its `tool_use_id`. */
  private calls = new Map<string, { name: string; input: Record<string, unknown> }>();

  /** [RN6] The answer to a `can_use_tool` request, as Claude Code's control protocol takes it on stdin. */
  permissionAnswer(requestId: string, verdict: Verdict): string {
    return JSON.stringify({
      type: "control_response",
      response: { subtype: "success", request_id: requestId, response: verdict },
    });
  }

  parse(line: string, job: JobContext): AgentEvent[] {
    let e: ClaudeLine;
    try {
      e = JSON.parse(line) as ClaudeLine;
    } catch {
      return [];
    }
    if (e.type === "control_request" && e.request?.subtype === "can_use_tool" && e.request_id) {
      const r = e.request;
      return [
        {
          type: "permission",
          requestId: e.request_id,
          call: { tool: String(r.tool_name ?? ""), input: r.input ?? {}, toolUseId: r.tool_use_id ?? null },
        },
      ];
    }
    if (e.type === "control_cancel_request" && e.request_id)
      return [{ type: "permission_withdrawn", requestId: e.request_id }];
    if (e.parent_tool_use_id) return []; // a sub-agent's own steps: its Task call stands for them
    switch (e.type) {
      case "system":
        return e.subtype === "init" && typeof e.session_id === "string" ? [{ type: "session", id: e.session_id }] : [];
      case "assistant":
        // An API error comes as a made-up assistant message; the `result` after it carries the reason.
        if (e.error || e.message?.model === "<synthetic>") return [];
        return (e.message?.content ?? []).flatMap((c) => this.assistantBlock(c));
      case "user":
        return (e.message?.content ?? []).flatMap((c) => (c.type === "tool_result" ? this.toolResult(c) : []));
      case "result":
        // [RN6] In `ask` every denial is a person's (or the deadline's) answer the model was given: not a failure.
        return resultEvents(e, job.profile === "ask");
      default:
        return [];
    }
  }

  private assistantBlock(c: ContentBlock): AgentEvent[] {
    if (c.type === "text") return c.text?.trim() ? [{ type: "message", text: c.text }] : [];
    if (c.type === "thinking") return [{ type: "reasoning", text: c.thinking ?? "" }];
    if (c.type !== "tool_use" || !c.id || !c.name) return [];
    const input = (c.input ?? {}) as Record<string, unknown>;
    this.calls.set(c.id, { name: c.name, input });
    if (this.calls.size > 1000) this.calls.delete(this.calls.keys().next().value!); // results that never came
    const call: AgentEvent = { type: "call_started", id: c.id, ...claudeCall(c.name, input) };
    return [call, ...this.startedBlock(c.id, c.name, input)];
  }

  /** What a call's start shows besides the call itself: the plan (TodoWrite), the typing indicator. */
  private startedBlock(id: string, name: string, input: Record<string, unknown>): AgentEvent[] {
    if (name === "TodoWrite") {
      const todos = Array.isArray(input.todos) ? (input.todos as Array<{ content?: string; status?: string }>) : [];
      return [
        {
          type: "plan",
          items: todos.map((t) => ({
            text: String(t.content ?? ""),
            completed: t.status === "completed",
            active: t.status === "in_progress",
          })),
        },
      ];
    }
    const file = editedFile(name, input);
    if (file !== null) return [{ type: "file_change", id, phase: "started", paths: [file] }];
    if (name === "Bash") return [{ type: "command", id, phase: "started", command: String(input.command ?? "") }];
    return []; // Read, Grep, Glob…: nothing to show until they fail
  }

  private toolResult(c: ContentBlock): AgentEvent[] {
    const call = c.tool_use_id ? this.calls.get(c.tool_use_id) : undefined;
    if (!call) return [];
    this.calls.delete(c.tool_use_id!);
    const output = resultText(c.content);
    const edited = editedFile(call.name, call.input);
    const ended: AgentEvent = {
      type: "call_finished",
      id: c.tool_use_id!,
      outcome: c.is_error ? failedOutcome(output) : "ok",
      ...(call.name === "Bash" ? { exitCode: exitCodeOf(output) ?? (c.is_error ? null : 0) } : {}),
      output,
      ...(edited !== null && !c.is_error ? { files: [edited] } : {}),
      // A failed command's output says why (its exit code and stderr); another tool's result is its error.
      ...(c.is_error && call.name !== "Bash" ? { error: output } : {}),
    };
    return [ended, ...this.resultBlock(c, call, output)];
  }

  /** What a call's end shows besides the call itself: a failure's log line, the file changed, the command's log. */
  private resultBlock(
    c: ContentBlock,
    call: { name: string; input: Record<string, unknown> },
    output: string,
  ): AgentEvent[] {
    if (call.name === "TodoWrite") return [];
    const file = editedFile(call.name, call.input);
    const failed: AgentEvent[] = c.is_error
      ? [{ type: "notice", message: `${call.name}${file ? ` ${file}` : ""} failed: ${clipUtf8(output, QUOTED_BYTES)}` }]
      : [];
    if (file !== null)
      return [...failed, { type: "file_change", id: c.tool_use_id!, phase: "completed", paths: [file] }];
    if (call.name !== "Bash") return failed;
    const code = exitCodeOf(output);
    const command = String(call.input.command ?? "");
    return [
      {
        type: "command",
        id: c.tool_use_id!,
        phase: "completed",
        command,
        output,
        exitCode: code ?? (c.is_error ? 1 : 0),
      },
    ];
  }
}

/** `result`: usage and cost, then finished — or failed with the reason (error subtypes, `is_error`, denials). */
function resultEvents(e: ClaudeLine, denialsAnswered: boolean): AgentEvent[] {
  const out: AgentEvent[] = [];
  if (e.usage) {
    const u = e.usage;
    out.push({
      type: "usage",
      usage: {
        input_tokens: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
        output_tokens: u.output_tokens ?? 0,
        cached_input_tokens: u.cache_read_input_tokens ?? 0,
        ...(typeof e.total_cost_usd === "number" ? { cost_usd: e.total_cost_usd } : {}),
      },
    });
  }
  const denials = denialsAnswered ? [] : (e.permission_denials ?? []);
  if (e.is_error || (e.subtype && e.subtype !== "success")) {
    const why = e.result || (e.errors ?? []).join("; ") || e.subtype || "error";
    out.push({ type: "turn_failed", message: `claude: ${clipUtf8(String(why), QUOTED_BYTES)}` });
  } else if (denials.length) {
    const names = denials.map((d) =>
      [d.tool_name, d.tool_input?.file_path ?? d.tool_input?.command ?? d.tool_input?.url ?? ""].join(" ").trim(),
    );
    out.push({ type: "turn_failed", message: `claude was denied: ${clipUtf8(names.join(", "), QUOTED_BYTES)}` });
  } else {
    out.push({ type: "turn_completed" });
  }
  return out;
}

interface ContentBlock {
  type: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}
interface ClaudeLine {
  type: string;
  request_id?: string;
  request?: {
    subtype?: string;
    tool_name?: string;
    input?: Record<string, unknown>;
    tool_use_id?: string;
  };
  subtype?: string;
  session_id?: string;
  parent_tool_use_id?: string | null;
  message?: { model?: string; content?: ContentBlock[] };
  is_error?: boolean;
  result?: string;
  errors?: string[];
  total_cost_usd?: number;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
  };
  permission_denials?: Array<{
    tool_name: string;
    tool_input?: { file_path?: string; command?: string; url?: string };
  }>;
  error?: string;
}
