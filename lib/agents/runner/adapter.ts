/**
 * What differs per agent CLI, and the normalized events the shared core translates. An
 * adapter turns a start or a resume into a command line and one line of the CLI's JSON
 * output into {@link AgentEvent}s; everything else (worktrees, checkpoints, process
 * control, room events, change-sets, checks) is the core's (lib/agents/runner/job.ts).
 */
import type { ToolOutcome, Usage } from "@/lib/core/protocol";
import type { AgentName, PermissionProfile } from "@/lib/core/protocol/runner-contract";

/** One item of an agent's todo list. */
export interface PlanItem {
  text: string;
  completed: boolean;
  active?: boolean;
  activeForm?: string;
}

/** One thing the agent did, in any CLI's words. */
export type AgentEvent =
  | { type: "session"; id: string }
  /** The agent's todo list, whole; `activeForm` is what the agent says while an item is in progress ("Running the tests"). */
  | { type: "plan"; items: PlanItem[] }
  | {
      type: "command";
      id: string;
      phase: "started" | "completed";
      command: string;
      output?: string;
      exitCode?: number | null;
    }
  | { type: "file_change"; id: string; phase: "started" | "completed"; paths: string[] }
  /** Any other tool (read, search, fetch…): `verb` and `target` make the typing indicator ("Reading" "a.ts"). */
  | { type: "tool"; id: string; phase: "started" | "completed"; verb: string; target: string }
  /**
   * A tool call begins ([TOOL3]): what becomes `tool.started`. `summary` is the call in the
   * agent's words (the command; `Edit a.ts`); the translation redacts and clips it. `at` is
   * the source's clock (ms), when it has one; `perLaunch`: the id is unique only within one
   * launch of the CLI (Codex's `item_3`), so a resume's calls get ids of their own.
   */
  | {
      type: "call_started";
      id: string;
      tool: string;
      summary: string;
      input?: string;
      paths?: string[];
      at?: number;
      perLaunch?: boolean;
    }
  /** A tool call ends — or, with `tool` and `summary`, a whole call seen only at its end. */
  | {
      type: "call_finished";
      id: string;
      outcome: ToolOutcome;
      exitCode?: number | null;
      /** The whole output, as the agent saw it (the translation keeps its tail inline, the rest in the object store). */
      output?: string;
      files?: string[];
      error?: string;
      durationMs?: number;
      at?: number;
      perLaunch?: boolean;
      tool?: string;
      summary?: string;
      input?: string;
      paths?: string[];
    }
  | { type: "message"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "usage"; usage: Usage }
  | { type: "turn_completed" }
  | { type: "turn_failed"; message: string }
  /** Something the CLI said that is worth a log line but changes nothing. */
  | { type: "notice"; message: string }
  /** [RN6] The CLI asks whether a tool call may run: the job answers through {@link Adapter.permissionAnswer}. */
  | { type: "permission"; requestId: string; call: ToolCall }
  /** The CLI took back a question it asked (it was answered another way). */
  | { type: "permission_withdrawn"; requestId: string };

/** A tool call the agent wants to make, in its CLI's words (`Bash` `{command}`, `Edit` `{file_path…}`). */
export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  toolUseId: string | null;
}

/** The answer to a {@link ToolCall}: run it (with this input), or not (the model reads `message`). */
export type Verdict =
  { behavior: "allow"; updatedInput: Record<string, unknown> } | { behavior: "deny"; message: string };

/**
 * [RN6] Which tool calls of an `ask` run need a person: `allow` run at once (`"*"`: all but
 * those in `ask`), `ask` wait for the room; anything else is denied without asking.
 */
export interface AskPolicy {
  allow: "*" | readonly string[];
  ask: readonly string[];
  /** How the CLI's questions reach the runner: its stdin/stdout, or a hook calling the job's socket. */
  via: "stdio" | "hook";
  /**
   * The tool whose calls are questions to a person, and how the answers reach the agent: in the
   * call's input (Claude Code's AskUserQuestion), or as the reason the call is refused (Codex's
   * `request_user_input`, which `codex exec` cannot run: the model reads the answers there).
   */
  question: { tool: string; answer: "input" | "reason" };
}

/** A process to launch: the core adds CHIPS_JOB and the job's secrets to `env`. */
export interface LaunchSpec {
  cmd: string;
  args: string[];
  env: Record<string, string>;
  /** Lines for the CLI's stdin; it then stays open (for answers) until the turn's end. Left out: stdin closed. */
  stdin?: string[];
}

/** What an adapter knows of the job it launches for. */
export interface JobContext {
  runId: string;
  worktree: string;
  /** The job's own directory (outside the worktree): CLI home, temp, guidance. */
  jobDir: string;
  profile: PermissionProfile;
  model: string | null;
  /** [RN5] the provider the start named (only an adapter whose {@link Adapter.providers} lists it gets one). */
  provider: string | null;
  /** [RN5] the start's instructions for the agent ("" for none): its system prompt or developer instructions. */
  instructions: string;
  /** Repo guidance the core wrote for the agent (decisions, write scope, outcome). */
  guidance: string;
  /** [RN6] How long an `ask` run waits for a person's answer, seconds. */
  askSeconds: number;
}

export interface Adapter {
  readonly agent: AgentName;
  /** The CLI's version when it is installed and runs here, else null (not advertised). */
  detect(): Promise<string | null>;
  /** Profiles this adapter can enforce on this machine ([RN1]: anything else is refused). */
  profiles(): Promise<PermissionProfile[]>;
  /** [RN5] The models a start may name (advertised in the hello; any other name is passed through all the same). */
  models(): string[];
  /** [RN5] The providers a start may name; a start naming another is refused. Empty: this agent takes none. */
  providers(): string[];
  /** Why this adapter's sandbox cannot be built here, if it builds its own (null: it can). */
  sandboxProblem?(): Promise<string | null>;
  /** Get the job's directory ready (CLI home, guidance file). */
  prepare(job: JobContext): Promise<void>;
  start(job: JobContext, prompt: string): LaunchSpec;
  resume(job: JobContext, sessionId: string, text: string): LaunchSpec;
  /** One line of the CLI's stdout → what it means (nothing for lines it does not know). */
  parse(line: string, job: JobContext): AgentEvent[];
  /** [RN6] What the `ask` profile lets run, asks about and denies; absent: the adapter has no `ask` profile. */
  readonly askPolicy?: AskPolicy;
  /** The stdin line that answers a `permission` event (`via: "stdio"`). */
  permissionAnswer?(requestId: string, verdict: Verdict): string;
}
