import type { AskOutcome, AskRequest } from "../sdk";

/**
 * What the demo asks the room when run with `--ask` ([ASK1]): a permission for a pretend
 * cleanup, so a person sees an agent wait for them and answers it. Nothing is ever deleted.
 */
export const DEMO_ASK: AskRequest = {
  kind: "permission",
  tool: "Bash",
  summary: "rm -rf ./.demo-cache (clean the pretend build cache)",
  command: "rm -rf ./.demo-cache",
  paths: [".demo-cache/"],
  expiresInSeconds: 300,
  source: "demo",
};

/** What the demo says it does with the answer (a message in the room). */
export function afterAnswer(o: AskOutcome): string {
  if (o.kind === "closed")
    return o.reason === "expired"
      ? "No answer in 5 minutes: the safe default applies (deny), so the pretend cache stays."
      : `The question about the pretend cache was closed (${o.reason}).`;
  const note = o.answer.note ? ` (“${o.answer.note}”)` : "";
  if (o.answer.decision === "deny") return `Permission denied${note}: the pretend cache stays.`;
  const forRun = o.answer.decision === "allow_for_run" ? ` — and for the rest of this run (${o.answer.scope})` : "";
  return `Permission granted${forRun}${note}: cleaning the pretend cache (nothing real is deleted).`;
}
