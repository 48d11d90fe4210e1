import { clipUtf8, LIMITS, TOOL_LIMITS, type ToolOutcome, type Usage } from "@/lib/core/protocol";
import { redact } from "@/lib/core/protocol/redact";

/**
 * What the mapping reads out of telemetry, before it knows the run: facts about one agent
 * session, each with the stable key its events are stored under ([OTL3]). lib/server/otel/plan.ts
 * turns a session's facts into protocol events against its run's state.
 */

/** Which run a record belongs to ([OTL4]). */
export interface Session {
  /** `claude-code:<session.id>`, `codex:<conversation.id>`, `trace:<traceId>` or `run:<run id>`. */
  key: string;
  /** A run named by the resource (`chips.run.id`). */
  runId?: string;
  /** A room named by the resource (`chips.space.id`). */
  spaceId?: string;
  /** A session goes on in a new run after its run finished; a trace or a named run does not. */
  segments: boolean;
  /** Who it is, for a goal when nothing better is known: "Claude Code", "Codex", the agent's name. */
  agent: string;
  /** The agent's session id (the run's `session_ref`). */
  ref?: string;
}

interface Base {
  session: Session;
  /** The idempotency key of the fact's first event; the others add `/n`. */
  key: string;
  /** When it happened (ms) and a tiebreak (a sequence number, or ns). */
  at: number;
  tie: number;
  /** A better goal for a run this fact starts (the prompt, the agent's name). */
  goal?: string;
}

interface CallFields {
  callId: string;
  tool: string;
  summary: string;
  input?: string;
}

export type Fact = Base &
  (
    | { t: "prompt" }
    | { t: "usage"; usage: Usage }
    /** A call began (its input unknown yet): the typing indicator, no tool event — the call is sent whole at its end. */
    | { t: "running"; tool: string }
    | ({
        t: "call.end";
        outcome: ToolOutcome;
        startedAt?: string;
        exitCode?: number;
        durationMs?: number;
        output?: string;
        outputBytes?: number;
        error?: string;
      } & CallFields)
    | { t: "plan"; steps: { title: string; state: "pending" | "active" | "done" }[] }
    | { t: "end"; outcome: "succeeded" | "failed" | "cancelled"; summary?: string; usage?: Usage }
  );

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** A number from an attribute that may be a string ("54") or a number. */
export function num(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Whole non-negative number, or undefined. */
export const count = (v: unknown) => {
  const n = num(v);
  return n !== undefined && n >= 0 ? Math.round(n) : undefined;
};

/** A JSON attribute (Claude's `tool_input`, Codex's `arguments`) as an object, or {}. */
export function jsonObject(v: unknown): Record<string, unknown> {
  if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  try {
    const o: unknown = JSON.parse(str(v));
    return o && typeof o === "object" && !Array.isArray(o) ? (o as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Redacted and cut to `max` UTF-8 bytes. */
export const clean = (s: string, max: number) => clipUtf8(redact(s), max);

/** One redacted line of at most `max` bytes. */
const line = (s: string, max: number) => clean(s.replace(/\s+/g, " ").trim(), max);

/** The end of a text in at most `max` UTF-8 bytes (an output's tail says most: the error, the exit), redacted. */
export function tail(s: string, max: number): string {
  const text = redact(s);
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return text;
  const mark = "…";
  let from = bytes.length - (max - Buffer.byteLength(mark));
  while (from < bytes.length && (bytes[from] & 0xc0) === 0x80) from++; // never start inside a code point
  return mark + bytes.subarray(from).toString("utf8");
}

const cmd = (v: unknown) => (Array.isArray(v) ? v.map(str).join(" ") : str(v));

/**
 * A call in one line from its tool's input, as a person would say it: the command, or
 * `Edit src/x.ts`; the tool's name alone when its input is not known.
 */
export function callText(tool: string, input: Record<string, unknown>): { summary: string; input?: string } {
  const command = cmd(input.command ?? input.cmd ?? input.full_command);
  if (command) return { summary: line(command, TOOL_LIMITS.summary), input: clean(command, TOOL_LIMITS.input) };
  const target = str(input.file_path ?? input.path ?? input.notebook_path ?? input.pattern ?? input.url ?? input.query);
  const rest = Object.keys(input).length ? JSON.stringify(input) : undefined;
  return {
    summary: line(target ? `${tool} ${target}` : tool, TOOL_LIMITS.summary),
    ...(rest ? { input: clean(rest, TOOL_LIMITS.input) } : {}),
  };
}

/** A goal from a prompt or a name: one line within the goal's limit. */
export const goalOf = (s: string) => line(s, LIMITS.goal);

/** ms since the epoch as ISO time, or undefined for none. */
export const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : undefined);
