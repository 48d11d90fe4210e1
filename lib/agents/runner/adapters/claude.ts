import fs from "node:fs";
import path from "node:path";
import type { PermissionProfile } from "@/lib/core/protocol/runner-contract";
import { cliVersion, packageBin } from "./cli";
import type { Adapter, AgentEvent, JobContext, LaunchSpec, Verdict } from "../adapter";
import { DEFAULT_BWRAP, endpointOf, gitDirsOf, probeSandbox, sandboxed } from "../sandbox";
import { ClaudeStream } from "./claude-stream";

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
  readonly askPolicy = {
    allow: READS,
    ask: ASKED,
    via: "stdio",
    question: { tool: "AskUserQuestion", answer: "input" },
  } as const;
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

  /** [RN6] The answer to a `can_use_tool` request, as Claude Code's control protocol takes it on stdin. */
  permissionAnswer(requestId: string, verdict: Verdict): string {
    return JSON.stringify({
      type: "control_response",
      response: { subtype: "success", request_id: requestId, response: verdict },
    });
  }

  /** Each adapter reads its own stream: the calls it remembers are this adapter's. */
  private stream = new ClaudeStream();

  parse(line: string, job: JobContext): AgentEvent[] {
    // [RN6] In `ask` every denial is a person's (or the deadline's) answer the model was given: not a failure.
    return this.stream.parse(line, job.profile === "ask");
  }
}
