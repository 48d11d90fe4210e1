import fs from "node:fs";
import type { Usage } from "@/lib/core/protocol";
import type { AgentEvent, PlanItem } from "@/lib/agents/runner/adapter";
import { claudeCall, editedFile, exitCodeOf, failedOutcome } from "@/lib/agents/runner/adapters/claude-calls";

/**
 * What Claude Code's hooks say about a tool call, as the runner's AgentEvents
 * (lib/agents/runner/adapter.ts), so one translation (lib/agents/runner/translate.ts) serves both.
 * Todos come two ways, read by tool name: `TodoWrite` (the whole list each time; 2.1.141
 * with `-p`) and the task tools (`TaskCreate` / `TaskUpdate`, one task at a time; 2.1.141
 * interactive, and every version after it).
 */

/** One task of the session's task list (the task tools keep it across turns). */
export interface Task {
  id: string;
  subject: string;
  status: "pending" | "in_progress" | "completed" | "deleted";
  activeForm?: string;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const base = (p: unknown) => str(p).split("/").pop() || str(p);

/** The typing indicator for a tool call that starts (nothing for the todo tools: they are the plan). */
export function toolStarted(name: string, input: Record<string, unknown>, id: string): AgentEvent[] {
  if (PLAN_TOOLS.has(name)) return [];
  if (name === "Bash") return [{ type: "command", id, phase: "started", command: str(input.command) }];
  const file = editedFile(name, input);
  if (file !== null) return [{ type: "file_change", id, phase: "started", paths: [file] }];
  const [verb, target] = describe(name, input);
  return [{ type: "tool", id, phase: "started", verb, target }];
}

function describe(name: string, input: Record<string, unknown>): [string, string] {
  switch (name) {
    case "Read":
      return ["Reading", base(input.file_path)];
    case "Grep":
      return ["Searching for", str(input.pattern)];
    case "Glob":
      return ["Looking for", str(input.pattern)];
    case "WebFetch":
      return ["Fetching", str(input.url)];
    case "WebSearch":
      return ["Searching the web for", str(input.query)];
    case "Task":
    case "Agent":
      return ["Delegating", str(input.description) || str(input.subagent_type) || "a task"];
    default:
      return ["Using", name.replace(/^mcp__/, "").replace(/__/g, " ")];
  }
}

const PLAN_TOOLS = new Set(["TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet"]);

/** True for a tool whose call changes (or reads) the todo list. */
export const isPlanTool = (name: string) => PLAN_TOOLS.has(name);

/** `TodoWrite`'s list as plan items. */
export function todoWriteItems(input: Record<string, unknown>): PlanItem[] {
  const todos = Array.isArray(input.todos) ? (input.todos as Array<Record<string, unknown>>) : [];
  return todos.map((t) => ({
    text: str(t.content),
    completed: t.status === "completed",
    active: t.status === "in_progress",
    ...(str(t.activeForm) ? { activeForm: str(t.activeForm) } : {}),
  }));
}

/**
 * A task tool's call, applied to the session's tasks (a new list). `TaskCreate`'s id is
 * only in its answer ("Task #3 created successfully: …", or `{task: {id}}`), so the
 * task tools are read after they ran (PostToolUse).
 */
export function applyTaskTool(tasks: Task[], name: string, input: Record<string, unknown>, response: unknown): Task[] {
  if (name === "TaskCreate") {
    const id = createdId(response);
    if (!id) return tasks;
    return [
      ...tasks.filter((t) => t.id !== id),
      {
        id,
        subject: str(input.subject),
        status: "pending",
        ...(str(input.activeForm) ? { activeForm: str(input.activeForm) } : {}),
      },
    ];
  }
  if (name === "TaskUpdate") {
    const id = str(input.taskId);
    return tasks.map((t) =>
      t.id !== id
        ? t
        : {
            ...t,
            ...(str(input.subject) ? { subject: str(input.subject) } : {}),
            ...(str(input.activeForm) ? { activeForm: str(input.activeForm) } : {}),
            ...(["pending", "in_progress", "completed", "deleted"].includes(str(input.status))
              ? { status: input.status as Task["status"] }
              : {}),
          },
    );
  }
  return tasks;
}

function createdId(response: unknown): string | null {
  const r = response as { task?: { id?: unknown } } | string | null;
  if (r && typeof r === "object" && r.task && (typeof r.task.id === "string" || typeof r.task.id === "number"))
    return String(r.task.id);
  const text = typeof r === "string" ? r : JSON.stringify(r ?? "");
  const m = /Task #(\w+) created/.exec(text);
  return m ? m[1] : null;
}

/** The run's plan from the session's tasks: those still open when it began, and those it touched. */
export function taskItems(tasks: Task[], shown: string[]): PlanItem[] {
  return tasks
    .filter((t) => shown.includes(t.id) && t.status !== "deleted")
    .map((t) => ({
      text: t.subject,
      completed: t.status === "completed",
      active: t.status === "in_progress",
      ...(t.activeForm ? { activeForm: t.activeForm } : {}),
    }));
}

/**
 * The turn's token use, from the session transcript Claude Code keeps (hooks carry none):
 * every assistant message since `since` (ISO time), each message id counted once.
 */
export function transcriptUsage(file: string, since: string): Usage | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const seen = new Set<string>();
  const total: Usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
  let any = false;
  for (const line of text.split("\n")) {
    if (!line.includes('"assistant"')) continue;
    let e: { type?: string; timestamp?: string; message?: { id?: string; usage?: Record<string, number> } };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    const u = e.message?.usage;
    if (e.type !== "assistant" || !u || (e.timestamp ?? "") < since) continue;
    const id = e.message?.id ?? "";
    if (id && seen.has(id)) continue;
    seen.add(id);
    any = true;
    total.input_tokens +=
      (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    total.output_tokens += u.output_tokens ?? 0;
    total.cached_input_tokens! += u.cache_read_input_tokens ?? 0;
  }
  return any ? total : null;
}

/** When a queue record was written (its name is the hook's `date +%s%N`, then its pid), in ms. */
export const queuedAt = (name: string): number | undefined => {
  const ns = Number(name.split("-")[0]);
  return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : undefined;
};

/** PreToolUse as a call's start ([TOOL3]). */
export function callStarted(rec: Record<string, unknown>, at: number | undefined): AgentEvent {
  const input = (rec.tool_input ?? {}) as Record<string, unknown>;
  return { type: "call_started", id: str(rec.tool_use_id), ...claudeCall(str(rec.tool_name), input), at };
}

/** A call the room's gate denied before it ran (a steer first, a pause held too long): a whole call. */
export function callDenied(rec: Record<string, unknown>, why: string): AgentEvent {
  const input = (rec.tool_input ?? {}) as Record<string, unknown>;
  return {
    type: "call_finished",
    id: str(rec.tool_use_id),
    outcome: "denied",
    error: why,
    ...claudeCall(str(rec.tool_name), input),
  };
}

/** PostToolUse (it ran) or PostToolUseFailure (it failed, was refused or interrupted) as a call's end ([TOOL3]). */
export function callFinished(rec: Record<string, unknown>, at: number | undefined): AgentEvent {
  const tool = str(rec.tool_name);
  const input = (rec.tool_input ?? {}) as Record<string, unknown>;
  const duration = typeof rec.duration_ms === "number" && rec.duration_ms >= 0 ? { durationMs: rec.duration_ms } : {};
  const whole = { ...claudeCall(tool, input), id: str(rec.tool_use_id), at, ...duration };
  if (rec.hook_event_name === "PostToolUseFailure") {
    const error = typeof rec.error === "string" ? rec.error : JSON.stringify(rec.error ?? "failed");
    return {
      type: "call_finished",
      ...whole,
      outcome: failedOutcome(error, rec.is_interrupt === true),
      ...(tool === "Bash" ? { exitCode: exitCodeOf(error) } : {}),
      error,
    };
  }
  const r = rec.tool_response as { stdout?: unknown; stderr?: unknown; interrupted?: unknown } | string | null;
  const bash = tool === "Bash" && r && typeof r === "object";
  const output = bash
    ? [str(r.stdout), str(r.stderr)].filter(Boolean).join("\n")
    : typeof r === "string"
      ? r
      : JSON.stringify(r ?? "");
  const file = editedFile(tool, input);
  return {
    type: "call_finished",
    ...whole,
    outcome: bash && r.interrupted === true ? "cancelled" : "ok",
    ...(bash && r.interrupted !== true ? { exitCode: 0 } : {}),
    output,
    ...(file ? { files: [file] } : {}),
  };
}
