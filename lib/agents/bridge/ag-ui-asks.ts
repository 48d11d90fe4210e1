import type { Interrupt, ResumeEntry } from "@ag-ui/core";
import { clipUtf8 } from "../../core/protocol/clip";
import { LIMITS } from "../../core/protocol/limits";
import type { AskOutcome, AskRequest } from "../sdk/asks";
import type { ChipsClient } from "../sdk";

/** A tool call the agent streamed (TOOL_CALL_START / TOOL_CALL_ARGS): what an approval interrupt is about. */
export interface StreamedCall {
  name: string;
  args: string;
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** Seconds until an interrupt's `expiresAt` (ISO 8601), within what an ask may wait; none when it has no usable one. */
function secondsLeft(expiresAt: string | undefined): number | undefined {
  const at = expiresAt ? Date.parse(expiresAt) : NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.min(86_400, Math.max(1, Math.ceil((at - Date.now()) / 1000)));
}

/**
 * [AGUI1] One interrupt as an ask: about a tool call (`toolCallId`) it is a permission — the
 * tool and its arguments, Allow or Deny (AG-UI has no "for the rest of the run") — else a
 * question: its message, the values of a `responseSchema` enum as options, or free text.
 */
function interruptAsk(i: Interrupt, calls: Map<string, StreamedCall>): AskRequest {
  const expiresInSeconds = secondsLeft(i.expiresAt);
  // [ASK8] Unanswered, the interrupt resumes `cancelled`: what the agent then does is its own.
  const base = {
    ...(expiresInSeconds ? { expiresInSeconds } : {}),
    ifUnanswered: "agent_default" as const,
    source: "ag-ui",
  };
  if (i.toolCallId) {
    const call = calls.get(i.toolCallId);
    const tool = call?.name || "tool";
    return {
      kind: "permission",
      tool: clipUtf8(tool, LIMITS.askTool),
      summary: clipUtf8(oneLine(i.message || `${tool} ${call?.args ?? ""}`) || tool, LIMITS.askSummary),
      scope: clipUtf8(tool, LIMITS.askSummary),
      options: [
        { id: "allow", label: "Allow", decision: "allow" },
        { id: "deny", label: "Deny", decision: "deny" },
      ],
      ...base,
    };
  }
  const values = Array.isArray(i.responseSchema?.enum)
    ? (i.responseSchema.enum as unknown[]).filter((v): v is string => typeof v === "string")
    : [];
  const options = values
    .slice(0, LIMITS.askQuestionOptions)
    .map((v, n) => ({ id: `o${n + 1}`, label: clipUtf8(v, LIMITS.askOptionLabel) }));
  return {
    kind: "question",
    question: clipUtf8(i.message || i.reason || "The agent needs an answer", LIMITS.askQuestion),
    ...(options.length ? { options } : { freeText: true }),
    ...base,
  };
}

/**
 * [AGUI1] The resume entry an ask's outcome makes: a permission resolves to
 * `{approved, note?}`, a question to the option's value or the typed text; an ask closed
 * without an answer (expired, withdrawn) cancels the interrupt — the agent's own default.
 */
function resumeEntry(i: Interrupt, req: AskRequest, got: AskOutcome): ResumeEntry {
  if (got.kind !== "answered") return { interruptId: i.id, status: "cancelled" };
  const a = got.answer;
  if (req.kind === "permission") {
    const approved = a.decision === "allow" || a.decision === "allow_for_run";
    return { interruptId: i.id, status: "resolved", payload: { approved, ...(a.note ? { note: a.note } : {}) } };
  }
  const chosen = req.options?.find((o) => o.id === a.option_id);
  const values = (i.responseSchema?.enum as unknown[] | undefined) ?? [];
  const value = chosen ? values[Number(chosen.id.slice(1)) - 1] : a.text;
  return { interruptId: i.id, status: "resolved", payload: value ?? "" };
}

/**
 * Ask the room about every interrupt a run ended with, at once; answers the resume entries
 * for the next run and, for each answer, its receipt to send once that run has begun.
 * `signal` withdraws what still waits (a cancel or a steer from the room): those cancel.
 */
export async function askInterrupts(
  client: ChipsClient,
  runId: string,
  interrupts: Interrupt[],
  calls: Map<string, StreamedCall>,
  signal: AbortSignal,
): Promise<{ resume: ResumeEntry[]; applied: () => Promise<void> }> {
  const got = await Promise.all(
    interrupts.map(async (i) => {
      const req = interruptAsk(i, calls);
      return { i, req, outcome: await client.ask(runId, req, { signal }) };
    }),
  );
  return {
    resume: got.map(({ i, req, outcome }) => resumeEntry(i, req, outcome)),
    applied: async () => {
      for (const { outcome } of got) if (outcome.kind === "answered") await outcome.apply();
    },
  };
}
