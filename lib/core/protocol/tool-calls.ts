import { z } from "zod";
import { IsoTime, optionalText, text } from "./fields";
import { LIMITS } from "./limits";

/**
 * Tool calls ([TOOL1]–[TOOL6], docs/PROTOCOL.md "Tool calls"): what an agent ran — a shell
 * command, an edit, a search, an MCP tool — as `tool.started` and `tool.finished`, or one
 * `tool.finished` carrying the whole call when the sender saw only its end. The event
 * shapes live here and become events in events.ts; the read models (a run's latest calls,
 * a step's count and time) are folded by lib/core/projection/tool-calls.ts.
 */

/** Limits of the tool events, UTF-8 bytes like every limit ([TOOL1]). */
export const TOOL_LIMITS = {
  callId: 128,
  tool: 128,
  summary: 500,
  input: 4000,
  output: 4000,
  error: 4000,
  path: 1000,
  /** Paths a call names (`paths`) and files it wrote (`files`). */
  paths: 50,
  files: 100,
  /** Calls a run may have open (started, not finished) at once ([TOOL2]). */
  open: 200,
  /** Calls the run panel keeps ([TOOL4]). */
  last: 5,
  /** Distinct tools a run's tally breaks out ([TOOL4]); calls of more tools count in the totals only. */
  tools: 32,
} as const;

/** How a call ended: ran and succeeded, ran and failed (a non-zero exit…), refused before it ran, or stopped. */
export const ToolOutcome = z.enum(["ok", "failed", "denied", "cancelled"]);
export type ToolOutcome = z.infer<typeof ToolOutcome>;

/** A whole output in the object store ([RN3]): what `PUT /api/v1/runs/:run/objects` answered. */
export const OutputRef = z.object({
  key: text(300),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits"),
  bytes: z.number().int().min(0),
});
export type OutputRef = z.infer<typeof OutputRef>;

// A pattern rather than a refine, so the served JSON Schema says it too ([SCH1]).
const oneLine = (max: number) => text(max).regex(/^[^\r\n]*$/, "one line: no line breaks");
const pathList = (max: number) => z.array(text(TOOL_LIMITS.path)).max(max, `at most ${max} paths`);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** What a call is: said by its start, or by a whole call's finish. */
const callFields = {
  /** `Bash`, `Edit`, `exec_command`, `apply_patch`, an MCP tool's name… */
  tool: text(TOOL_LIMITS.tool),
  /** The call in one redacted line: the command, or `Edit src/x.ts`. Secrets masked by the sender. */
  summary: oneLine(TOOL_LIMITS.summary),
  /** More of the input, redacted (the whole command). */
  input: optionalText(TOOL_LIMITS.input).optional(),
  /** Paths the call names (read, searched, edited). */
  paths: pathList(TOOL_LIMITS.paths).optional(),
  /** The plan step it belongs to; left out, the step active when it started ([TOOL4]). */
  step_id: text(LIMITS.stepId).optional(),
  /** When it started by the agent's clock (imported calls); the server's time is `ts`. */
  started_at: IsoTime.optional(),
};

/** The agent's own id of the call (Claude's tool_use_id, Codex's call_id, AG-UI's toolCallId): unique in the run. */
const callId = text(TOOL_LIMITS.callId);

export const toolStartedFields = { call_id: callId, ...callFields };

export const toolFinishedFields = {
  call_id: callId,
  outcome: ToolOutcome,
  exit_code: z.number().int().min(-2147483648).max(2147483647).optional(),
  /** How long it ran, by the agent's clock; left out, the server's times of start and finish say. */
  duration_ms: count.max(LIMITS.estimateSeconds * 1000).optional(),
  /** The whole output's size, whether or not it is here. */
  output_bytes: count.optional(),
  /** The output's tail, redacted. */
  output: optionalText(TOOL_LIMITS.output).optional(),
  /** The whole output in the object store, when it is over the inline limit. */
  output_ref: OutputRef.optional(),
  /** Paths the call wrote. */
  files: pathList(TOOL_LIMITS.files).optional(),
  error: optionalText(TOOL_LIMITS.error).optional(),
  // A whole call (no tool.started came) says what it was: tool and summary are then required ([TOOL2]).
  tool: callFields.tool.optional(),
  summary: callFields.summary.optional(),
  input: callFields.input,
  paths: callFields.paths,
  step_id: callFields.step_id,
  started_at: callFields.started_at,
};

/** A step's (or a tool's) tally of calls: how many, how many failed, their time in ms. */
export const CallTally = z.object({
  count: z.number().int(),
  failed: z.number().int(),
  ms: z.number().int(),
});
export type CallTally = z.infer<typeof CallTally>;

/** One call as the run panel draws it ([TOOL4]). */
export const ToolCall = z.object({
  call_id: z.string(),
  tool: z.string(),
  summary: z.string(),
  /** The step it belongs to; null when it ran outside every step. */
  step_id: z.string().nullable(),
  /** Seq and server time of its start (of the whole call's finish, when it came whole). */
  seq: z.number().int(),
  ts: z.string(),
  /** Null while it runs. */
  outcome: ToolOutcome.nullable(),
  exit_code: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  finished_seq: z.number().int().nullable(),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** A call started and not yet finished: what its finish is counted against. */
export const OpenCall = z.object({
  call_id: z.string(),
  tool: z.string(),
  step_id: z.string().nullable(),
  ts: z.string(),
});
export type OpenCall = z.infer<typeof OpenCall>;

/** A run's calls ([TOOL4]): totals, the newest few, those open, and a tally per tool. */
export const RunTools = z.object({
  count: z.number().int(),
  failed: z.number().int(),
  /** Calls open now (`open.length`). */
  running: z.number().int(),
  /** Total time of the finished calls, ms. */
  ms: z.number().int(),
  /** The newest calls, oldest first (at most TOOL_LIMITS.last). */
  last: z.array(ToolCall),
  open: z.array(OpenCall),
  /** Per tool, in the order first seen (at most TOOL_LIMITS.tools tools). */
  by_tool: z.array(CallTally.extend({ tool: z.string() })),
});
export type RunTools = z.infer<typeof RunTools>;
