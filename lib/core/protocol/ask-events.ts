import { z } from "zod";
import { idOf, optionalText, text } from "./fields";
import { LIMITS } from "./limits";
import { event } from "./envelope";

/**
 * Asking people ([ASK1]–[ASK6], docs/PROTOCOL.md "Asking people"): a run's request for a
 * person's input — a permission for a tool call, or a question — and what became of it.
 * The harness asks (`run.asked`), a person answers through the API (`run.answered`, the
 * first answer wins), the harness says it applied the answer (`run.answer_applied`), or the
 * ask ends without one (`run.ask_closed`: expired, answered at the terminal, run finished).
 */

export const AskKind = z.enum(["permission", "question"]);
export type AskKind = z.infer<typeof AskKind>;

/** What a person decides on a permission: allow once, allow this kind of call for the rest of the run, or deny. */
export const AskDecision = z.enum(["allow", "allow_for_run", "deny"]);
export type AskDecision = z.infer<typeof AskDecision>;

/** Why an ask ended without a person's answer being applied. */
export const AskCloseReason = z.enum(["expired", "answered_elsewhere", "run_finished", "cancelled"]);
export type AskCloseReason = z.infer<typeof AskCloseReason>;

/**
 * [ASK8] What happens to an ask nobody answers in time: the agent denies the call (a
 * question goes unanswered) — `deny`, also what an ask without the field means; the person
 * at the agent's own terminal decides (its prompt takes over) — `ask_in_terminal`; or the
 * agent applies a default of its own, which its close names — `agent_default`.
 */
export const IfUnanswered = z.enum(["deny", "ask_in_terminal", "agent_default"]);
export type IfUnanswered = z.infer<typeof IfUnanswered>;

/** How an ask first reached a person: pushed to an open Chips page, or delivered to a webhook. */
export const ShownVia = z.enum(["browser", "webhook"]);
export type ShownVia = z.infer<typeof ShownVia>;

/**
 * One choice the agent offers. A permission's options are the agent's own wording of its
 * choices, each mapped to the decision it means (`decision`); a question's carry an optional
 * `description`. Ids are unique within the ask.
 */
export const AskOption = z.object({
  id: text(LIMITS.askOptionId),
  label: text(LIMITS.askOptionLabel),
  description: optionalText(LIMITS.note).optional(),
  decision: AskDecision.optional(),
});
export type AskOption = z.infer<typeof AskOption>;

/** A permission's choices when the agent names none. */
export const DEFAULT_PERMISSION_OPTIONS: AskOption[] = [
  { id: "allow", label: "Allow", decision: "allow" },
  { id: "allow_for_run", label: "Allow for this run", decision: "allow_for_run" },
  { id: "deny", label: "Deny", decision: "deny" },
];

type Issue = { path: (string | number)[]; message: string };

/** What a permission must carry, and a question, and what neither may (a field of the other kind). */
function askIssues(e: {
  kind: AskKind;
  tool?: string;
  summary?: string;
  command?: string;
  paths?: string[];
  scope?: string;
  question?: string;
  options?: AskOption[];
  free_text?: boolean;
}): Issue[] {
  const out: Issue[] = [];
  const need = (field: string, has: unknown) =>
    !has && out.push({ path: [field], message: `required for a ${e.kind}` });
  const never = (field: string, has: unknown) =>
    has !== undefined && out.push({ path: [field], message: `not part of a ${e.kind}` });
  const ids = new Set<string>();
  e.options?.forEach((o, i) => {
    if (ids.has(o.id)) out.push({ path: ["options", i, "id"], message: "duplicate option id" });
    ids.add(o.id);
  });
  if (e.kind === "permission") {
    need("tool", e.tool);
    need("summary", e.summary);
    never("question", e.question);
    never("free_text", e.free_text);
    if ((e.options?.length ?? 0) > LIMITS.askPermissionOptions)
      out.push({ path: ["options"], message: `at most ${LIMITS.askPermissionOptions} options` });
    e.options?.forEach((o, i) => {
      if (!o.decision)
        out.push({ path: ["options", i, "decision"], message: "a permission's option says what it means" });
    });
    return out;
  }
  need("question", e.question);
  for (const f of ["tool", "summary", "command", "paths", "scope"] as const) never(f, e[f]);
  e.options?.forEach((o, i) => {
    if (o.decision) out.push({ path: ["options", i, "decision"], message: "a question's options carry no decision" });
  });
  if (!e.options?.length && !e.free_text)
    out.push({ path: ["options"], message: "a question needs options, or free_text: true" });
  return out;
}

/** [ASK1] A harness (or runner) asks a person, on a running run of its own. */
export const RunAsked = event("run.asked", {
  /** Chosen by the sender (`ask_` + ULID): the answer names it, and a retry sends the same. */
  ask_id: idOf("ask"),
  kind: AskKind,
  /** Permission: the tool (`Bash`, `Edit`, `exec_command`…) and what it will do, one redacted line. */
  tool: text(LIMITS.askTool).optional(),
  summary: text(LIMITS.askSummary).optional(),
  /** Permission: the whole command (redacted by the sender), and the paths it touches. */
  command: text(LIMITS.askCommand).optional(),
  paths: z.array(text(LIMITS.askPath)).max(LIMITS.askPaths).optional(),
  /** Permission: what "allow for this run" covers (default: the tool), e.g. `Bash(npm test:*)`. */
  scope: text(LIMITS.askSummary).optional(),
  /** Question: its text; whether a typed answer is taken besides (or instead of) the options. */
  question: text(LIMITS.askQuestion).optional(),
  free_text: z.boolean().optional(),
  options: z.array(AskOption).max(LIMITS.askQuestionOptions).optional(),
  /** After this long the server takes no answer ([ASK6]) and `if_unanswered` happens. */
  expires_in_seconds: z.number().int().min(1).max(LIMITS.askExpiresSeconds).optional(),
  /** [ASK8] What happens then: `deny` when left out. */
  if_unanswered: IfUnanswered.optional(),
  /** Where the ask came from: `claude-hook`, `claude-prompt-tool`, `codex`, `ag-ui`, `sdk`… */
  source: text(LIMITS.askSource).optional(),
})
  .superRefine((e, ctx) => {
    for (const i of askIssues(e)) ctx.addIssue({ code: "custom", ...i });
  })
  // [SCH1] askIssues said in JSON Schema, but for unique option ids (no keyword says a
  // property is unique across array items).
  .meta({
    allOf: [
      {
        if: { properties: { kind: { const: "permission" } }, required: ["kind"] },
        then: {
          required: ["tool", "summary"],
          not: { anyOf: [{ required: ["question"] }, { required: ["free_text"] }] },
          properties: { options: { maxItems: LIMITS.askPermissionOptions, items: { required: ["decision"] } } },
        },
      },
      {
        if: { properties: { kind: { const: "question" } }, required: ["kind"] },
        then: {
          required: ["question"],
          not: { anyOf: ["tool", "summary", "command", "paths", "scope"].map((f) => ({ required: [f] })) },
          properties: { options: { items: { not: { required: ["decision"] } } } },
          anyOf: [
            { required: ["options"], properties: { options: { minItems: 1 } } },
            { required: ["free_text"], properties: { free_text: { const: true } } },
          ],
        },
      },
    ],
  });

/** The ask first reached a person (system, once): pushed to an open Chips page, or to a webhook. */
export const RunAskShown = event("run.ask_shown", {
  ask_id: idOf("ask"),
  via: ShownVia,
});

/**
 * [ASK2] A person's answer, written for them by `POST /api/v1/runs/:run/asks/:ask/answer`.
 * A permission takes a `decision` (and `option_id`, the agent's option chosen); a question an
 * `option_id` and/or `text`. `scope` is set by the server on `allow_for_run`: the ask's own.
 */
export const RunAnswered = event("run.answered", {
  ask_id: idOf("ask"),
  decision: AskDecision.optional(),
  option_id: text(LIMITS.askOptionId).optional(),
  text: text(LIMITS.askQuestion).optional(),
  /** Delivered to the agent with the answer, e.g. why a call was denied. */
  note: text(LIMITS.note).optional(),
  scope: text(LIMITS.askSummary).optional(),
});

/** The harness applied the answer (or could not: the call was gone, answered at the terminal first). */
export const RunAnswerApplied = event("run.answer_applied", {
  ask_id: idOf("ask"),
  result: z.enum(["applied", "rejected"]),
  reason: optionalText(LIMITS.reason).optional(),
});

/** [ASK5] [ASK6] The ask ended without a person's answer from Chips; what the agent did instead. */
export const RunAskClosed = event("run.ask_closed", {
  ask_id: idOf("ask"),
  reason: AskCloseReason,
  /** The agent's safe default, when it applied one (`deny` for an expired permission). */
  applied_default: text(LIMITS.askOptionId).optional(),
  /** What else there is to say, e.g. what the person answered at the terminal. */
  note: optionalText(LIMITS.note).optional(),
});
