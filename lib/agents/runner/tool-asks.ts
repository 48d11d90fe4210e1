import { clipUtf8 } from "@/lib/core/protocol/clip";
import { LIMITS } from "@/lib/core/protocol/limits";
import type { AskAnswer } from "@/lib/core/protocol/asks";
import type { AskRequest } from "@/lib/agents/sdk";
import type { ToolCall } from "./adapter";

/**
 * What a person is asked about an agent's tool call ([ASK1]): one line that says what the call
 * will do, the whole command, the paths — the same for a runner's Claude Code or Codex and for
 * `chips connect claude`. `redact` masks what must not leave the machine (a runner's secrets).
 */

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** The file an editing tool writes (Claude Code's Edit/Write/MultiEdit/NotebookEdit). */
function pathOf(input: Record<string, unknown>): string {
  return str(input.file_path) || str(input.notebook_path);
}

/** The permission ask for a tool call: `scope` is the tool, so "allow for this run" covers that tool. */
export function permissionAsk(
  call: ToolCall,
  o: { seconds: number; source: string; redact?: (s: string) => string },
): Extract<AskRequest, { kind: "permission" }> {
  const redact = o.redact ?? ((s: string) => s);
  const command = str(call.input.command) || str(call.input.cmd);
  const file = pathOf(call.input);
  const what = command ? command : file ? `${call.tool} ${file}` : `${call.tool} ${JSON.stringify(call.input)}`;
  return {
    kind: "permission",
    tool: clipUtf8(call.tool || "tool", LIMITS.askTool),
    summary: clipUtf8(oneLine(redact(what)) || call.tool, LIMITS.askSummary),
    ...(command ? { command: clipUtf8(redact(command), LIMITS.askCommand) } : {}),
    ...(file ? { paths: [clipUtf8(redact(file), LIMITS.askPath)] } : {}),
    scope: clipUtf8(call.tool || "tool", LIMITS.askSummary),
    expiresInSeconds: o.seconds,
    source: o.source,
  };
}

/**
 * One question of Claude Code's AskUserQuestion (`{questions: [{question, header, options, multiSelect}]}`);
 * Codex's `request_user_input` has the same shape (`{questions: [{id, header, question, options}]}`).
 */
interface Question {
  question: string;
  options: { label: string; description?: string }[];
  multiSelect?: boolean;
}

function questionsOf(input: Record<string, unknown>): Question[] {
  const qs = Array.isArray(input.questions) ? (input.questions as unknown[]) : [];
  return qs
    .map((q) => q as Partial<Question>)
    .filter((q) => typeof q?.question === "string" && q.question.trim() !== "")
    .map((q) => ({
      question: q.question!,
      options: Array.isArray(q.options) ? q.options.filter((o) => typeof o?.label === "string") : [],
      multiSelect: !!q.multiSelect,
    }));
}

/**
 * AskUserQuestion as asks, one per question ([ASK1]: a question has one answer). Every one
 * takes typed text besides its options, as Claude Code's own dialog does ("Type something"):
 * a multi-select question is answered with the choices typed, comma-separated.
 */
export function questionAsks(
  input: Record<string, unknown>,
  o: { seconds: number; source: string; redact?: (s: string) => string },
): Extract<AskRequest, { kind: "question" }>[] {
  const redact = o.redact ?? ((s: string) => s);
  return questionsOf(input).map((q) => ({
    kind: "question",
    question: clipUtf8(
      redact(q.question) + (q.multiSelect ? " (several may apply: type them, comma-separated)" : ""),
      LIMITS.askQuestion,
    ),
    options: q.options.slice(0, LIMITS.askQuestionOptions).map((opt, i) => ({
      id: `o${i + 1}`,
      label: clipUtf8(redact(opt.label), LIMITS.askOptionLabel),
      ...(opt.description ? { description: clipUtf8(redact(opt.description), LIMITS.note) } : {}),
    })),
    freeText: true,
    expiresInSeconds: o.seconds,
    source: o.source,
  }));
}

/**
 * The AskUserQuestion input with the people's answers (`answers: {<question>: <label or text>}`),
 * as Claude Code takes them in `updatedInput`; null when a question has no usable answer.
 */
export function answeredInput(
  input: Record<string, unknown>,
  answers: (AskAnswer | null)[],
): Record<string, unknown> | null {
  const qs = questionsOf(input);
  const out: Record<string, string> = {};
  for (const [i, q] of qs.entries()) {
    const a = answers[i];
    const chosen = a?.option_id ? q.options[Number(a.option_id.slice(1)) - 1]?.label : undefined;
    const text = a?.text?.trim() ? a.text.trim() : undefined;
    const value = chosen && text ? `${chosen}: ${text}` : (chosen ?? text);
    if (!value) return null;
    out[q.question] = value;
  }
  return qs.length ? { ...input, answers: out } : null;
}

/**
 * The people's answers as one line the model reads where the call's result would be: how a
 * question reaches Codex, whose `request_user_input` cannot run under `codex exec`.
 */
export function answersMessage(answered: Record<string, unknown>): string {
  const answers = Object.entries((answered.answers ?? {}) as Record<string, string>);
  return `A person in the Chips room answered: ${answers.map(([q, a]) => `${q} → ${a}`).join("; ")}`;
}

/** What the model reads when a person denied its call (their note, if they wrote one). */
export function deniedMessage(note: string | null | undefined): string {
  return note?.trim()
    ? `A person in the Chips room denied this tool call: ${note.trim()}`
    : "A person in the Chips room denied this tool call.";
}
