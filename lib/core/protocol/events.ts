import { z } from "zod";
import { Actor, GoalFrom, idOf, IsoTime, optionalText, PlanStep, text, Usage } from "./fields";
import { LIMITS } from "./limits";
import { toolFinishedFields, toolStartedFields } from "./tool-calls";
import { event } from "./envelope";
import { RunAnswerApplied, RunAnswered, RunAskClosed, RunAsked, RunAskShown } from "./ask-events";
import { RunAssigned, RunQueued } from "./dispatch-events";
import { DecisionRecorded, RoomUpdated, TaskSaved } from "./room-events";
import { RunAnnotated } from "./annotation-events";

export { PROTOCOL_VERSION } from "./envelope";

/** What a person may tell a run ([RUN1]): the one list of command names. */
export const CommandName = z.enum(["steer", "pause", "resume", "cancel"]);
export type CommandName = z.infer<typeof CommandName>;

/**
 * [RUN2] The commands a harness obeys, declared on `run.started`: `[]` is watch-only (a
 * session started in a terminal that Chips can only mirror). Pause and resume come as a
 * pair, or a paused run could never be resumed. Left out: every command, as before.
 */
export const ObeyedCommands = z
  .array(CommandName)
  .max(CommandName.options.length)
  .superRefine((list, ctx) => {
    if (new Set(list).size !== list.length) ctx.addIssue({ code: "custom", message: "each command at most once" });
    if (list.includes("pause") !== list.includes("resume"))
      ctx.addIssue({ code: "custom", message: "pause and resume come together" });
  })
  // [SCH1] the superRefine above, said in JSON Schema.
  .meta({
    uniqueItems: true,
    allOf: [
      { if: { contains: { const: "pause" } }, then: { contains: { const: "resume" } } },
      { if: { contains: { const: "resume" } }, then: { contains: { const: "pause" } } },
    ],
  });

export const RunStarted = event("run.started", {
  goal: text(LIMITS.goal),
  plan: z
    .array(PlanStep)
    .max(LIMITS.planSteps, `at most ${LIMITS.planSteps} steps`)
    .optional()
    .superRefine((plan, ctx) => {
      const seen = new Set<string>();
      plan?.forEach((step, i) => {
        if (seen.has(step.step_id))
          ctx.addIssue({ code: "custom", path: [i, "step_id"], message: "duplicate step_id" });
        seen.add(step.step_id);
      });
    }),
  session_ref: optionalText(LIMITS.sessionRef).optional(),
  goal_from: GoalFrom.optional(),
  commands: ObeyedCommands.optional(),
});

export const RunStatus = event("run.status", {
  phase: text(LIMITS.phase),
  verb_phrase: text(LIMITS.verbPhrase),
  progress: z.number().min(0).max(1).optional(),
  estimate_seconds: z.number().min(0).max(LIMITS.estimateSeconds).optional(),
  usage: Usage.optional(),
});

/**
 * `pending` is Chips' addition to the step states (docs/PROTOCOL.md §2): a runner adds steps the agent planned but has
 * not begun (Codex's todo_list) with `pending`, so every planned step gets its hollow dot.
 */
export const StepState = z.enum(["pending", "active", "done", "failed", "skipped"]);
export type StepState = z.infer<typeof StepState>;
export const RunStep = event("run.step", {
  step_id: text(LIMITS.stepId),
  state: StepState,
  title: text(LIMITS.title).optional(),
  note: optionalText(LIMITS.note).optional(),
});

export const MessagePosted = event("message.posted", {
  text: text(LIMITS.text),
  reply_to: idOf("event").optional(),
});

export const Outcome = z.enum(["succeeded", "failed", "cancelled"]);
export type Outcome = z.infer<typeof Outcome>;
export const RunFinished = event("run.finished", {
  outcome: Outcome,
  summary: optionalText(LIMITS.summary).optional(),
  usage: Usage.optional(),
});

export const RunCommand = event("run.command", {
  command_id: idOf("command"),
  command: CommandName,
  text: text(LIMITS.text).optional(),
})
  .superRefine((e, ctx) => {
    if (e.command === "steer" && !e.text)
      ctx.addIssue({ code: "custom", path: ["text"], message: "required for steer" });
  })
  // [SCH1] the superRefine above, said in JSON Schema.
  .meta({ if: { properties: { command: { const: "steer" } }, required: ["command"] }, then: { required: ["text"] } });

export const AckResult = z.enum(["applied", "rejected"]);

export const RunCommandDelivered = event("run.command_delivered", {
  command_id: idOf("command"),
});

export const RunCommandAcked = event("run.command_acked", {
  command_id: idOf("command"),
  result: AckResult,
  reason: optionalText(LIMITS.reason).optional(),
});

export const RunnerEventKind = z.enum(["started", "log", "checkpoint", "change-set", "failed", "completed"]);
export const RunnerEvent = event("runner.event", {
  sequence: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  kind: RunnerEventKind,
  message: optionalText(LIMITS.runnerMessage),
  payload: z.record(z.string(), z.unknown()).optional(),
  occurred_at: IsoTime,
});

/** An agent's tool call begins ([TOOL1], tool-calls.ts). */
export const ToolStarted = event("tool.started", toolStartedFields);
/** An agent's tool call ends — or, with `tool` and `summary`, a whole call seen only at its end ([TOOL2]). */
export const ToolFinished = event("tool.finished", toolFinishedFields);
/**
 * [DRV1] What Chips could not append because of an event: a derived event (a budget's pause,
 * [BUD3]) the judge refused becomes this notice, so the event that caused it is never refused
 * for it. `text` says what was meant and why not; `derived` names the event that was not
 * appended and `code` the refusal's error code. Written by the system only, in any run state.
 */
export const RunNotice = event("run.notice", {
  text: text(LIMITS.note),
  derived: z.object({ type: text(LIMITS.phase), command: CommandName.optional() }),
  code: text(LIMITS.phase),
});

/** Who may send a type ([ENV10] "sent by"). A runner is a harness that may also send runner.event. */
export type SenderKind = "harness" | "runner" | "person" | "system";

interface CatalogueEntry {
  schema: z.ZodType;
  sentBy: readonly SenderKind[];
  requiresRun: boolean;
  requiresSpace: boolean;
}

/** The event catalogue of docs/PROTOCOL.md §2. */
export const CATALOGUE = {
  "run.started": { schema: RunStarted, sentBy: ["harness", "runner"], requiresRun: true, requiresSpace: true },
  "run.status": { schema: RunStatus, sentBy: ["harness", "runner"], requiresRun: true, requiresSpace: false },
  "run.step": { schema: RunStep, sentBy: ["harness", "runner"], requiresRun: true, requiresSpace: false },
  "message.posted": {
    schema: MessagePosted,
    sentBy: ["person", "harness", "runner"],
    requiresRun: false,
    requiresSpace: true,
  },
  "run.finished": {
    schema: RunFinished,
    sentBy: ["harness", "runner", "system"],
    requiresRun: true,
    requiresSpace: false,
  },
  "run.command": { schema: RunCommand, sentBy: ["system"], requiresRun: true, requiresSpace: false },
  "run.command_delivered": { schema: RunCommandDelivered, sentBy: ["system"], requiresRun: true, requiresSpace: false },
  "run.command_acked": {
    schema: RunCommandAcked,
    sentBy: ["harness", "runner"],
    requiresRun: true,
    requiresSpace: false,
  },
  "runner.event": { schema: RunnerEvent, sentBy: ["runner"], requiresRun: true, requiresSpace: false },
  "run.queued": { schema: RunQueued, sentBy: ["system"], requiresRun: true, requiresSpace: true },
  "run.assigned": { schema: RunAssigned, sentBy: ["system"], requiresRun: true, requiresSpace: false },
  "room.updated": { schema: RoomUpdated, sentBy: ["person"], requiresRun: false, requiresSpace: true },
  "decision.recorded": { schema: DecisionRecorded, sentBy: ["person"], requiresRun: false, requiresSpace: true },
  "run.annotated": { schema: RunAnnotated, sentBy: ["system"], requiresRun: true, requiresSpace: false },
  "task.saved": { schema: TaskSaved, sentBy: ["system"], requiresRun: false, requiresSpace: true },
  "tool.started": { schema: ToolStarted, sentBy: ["harness", "runner"], requiresRun: true, requiresSpace: false },
  "tool.finished": { schema: ToolFinished, sentBy: ["harness", "runner"], requiresRun: true, requiresSpace: false },
  "run.notice": { schema: RunNotice, sentBy: ["system"], requiresRun: true, requiresSpace: false },
  "run.asked": { schema: RunAsked, sentBy: ["harness", "runner"], requiresRun: true, requiresSpace: false },
  "run.ask_shown": { schema: RunAskShown, sentBy: ["system"], requiresRun: true, requiresSpace: false },
  "run.answered": { schema: RunAnswered, sentBy: ["system"], requiresRun: true, requiresSpace: false },
  "run.answer_applied": {
    schema: RunAnswerApplied,
    sentBy: ["harness", "runner"],
    requiresRun: true,
    requiresSpace: false,
  },
  "run.ask_closed": {
    schema: RunAskClosed,
    sentBy: ["harness", "runner", "system"],
    requiresRun: true,
    requiresSpace: false,
  },
} as const satisfies Record<string, CatalogueEntry>;

export type EventType = keyof typeof CATALOGUE;
export const EVENT_TYPES = Object.keys(CATALOGUE) as EventType[];
export function isEventType(t: unknown): t is EventType {
  return typeof t === "string" && Object.prototype.hasOwnProperty.call(CATALOGUE, t);
}

/**
 * Envelope fields a type requires that its schema leaves optional, because they depend on
 * the type ([ENV6], [ENV7], [ENV9]): `parseEvent` checks them, and the served JSON Schemas
 * list them in `required` ([SCH1]). `actor` is the credential's matter ([ENV10]).
 */
export function requiredEnvelope(type: EventType): ("run_id" | "space_id" | "idempotency_key")[] {
  const entry: CatalogueEntry = CATALOGUE[type];
  return [
    ...(entry.requiresRun ? (["run_id"] as const) : []),
    ...(entry.requiresSpace ? (["space_id"] as const) : []),
    // runner.event's key is its (run_id, sequence) ([RN2]).
    ...(type === "runner.event" ? [] : (["idempotency_key"] as const)),
  ];
}

/** Any event as it arrives, after parsing: a discriminated union on `type`. */
export const IncomingEvent = z.discriminatedUnion("type", [
  RunStarted,
  RunStatus,
  RunStep,
  MessagePosted,
  RunFinished,
  RunCommand,
  RunCommandDelivered,
  RunCommandAcked,
  RunnerEvent,
  RunQueued,
  RunAssigned,
  RoomUpdated,
  DecisionRecorded,
  TaskSaved,
  RunAnnotated,
  ToolStarted,
  ToolFinished,
  RunNotice,
  RunAsked,
  RunAskShown,
  RunAnswered,
  RunAnswerApplied,
  RunAskClosed,
]);
export type IncomingEvent = z.infer<typeof IncomingEvent>;

/**
 * IncomingEvent under its name, for documents that refer to it rather than repeat it (the
 * OpenAPI document); `/schemas/` serve the unnamed one whole.
 */
export const NamedIncomingEvent = IncomingEvent.meta({ id: "IncomingEvent" });

/** Server-owned fields of a stored event. */
export interface StoredFields {
  ts: string;
  seq: number;
  actor: Actor;
}
/** An event as stored and served: the parsed event plus `ts`, `seq` and the resolved `actor`. */
export type StoredEvent = IncomingEvent extends infer E
  ? E extends unknown
    ? Omit<E, "ts" | "seq" | "actor"> & StoredFields
    : never
  : never;

/**
 * An event as stored and served, as a schema: each type's own fields (as its schema took them
 * in) with the server's `ts`, `seq` and `actor`. What the API documents and its tests check
 * answers against; the server never parses its own stored bodies with it.
 */
export const StoredEvent = z
  .intersection(NamedIncomingEvent, z.object({ ts: z.string(), seq: z.number().int().min(1), actor: Actor }))
  .meta({ id: "StoredEvent" });

export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}
