import type { AskOutcome, AskRequest, RunHandle } from "../sdk";
import type { Waker } from "./waker";

/**
 * What the demo asks the room when run with `--ask` ([ASK1]): a permission for a pretend
 * cleanup, so a person sees an agent wait for them and answers it. Nothing is ever deleted.
 */
const DEMO_ASK: AskRequest = {
  kind: "permission",
  tool: "Bash",
  summary: "rm -rf ./.demo-cache (clean the pretend build cache)",
  command: "rm -rf ./.demo-cache",
  paths: [".demo-cache/"],
  expiresInSeconds: 300,
  source: "demo",
};

/** What the demo says it does with the answer (a message in the room). */
function afterAnswer(o: AskOutcome): string {
  if (o.kind === "closed")
    return o.reason === "expired"
      ? "No answer in 5 minutes: the safe default applies (deny), so the pretend cache stays."
      : `The question about the pretend cache was closed (${o.reason}).`;
  const note = o.answer.note ? ` (“${o.answer.note}”)` : "";
  if (o.answer.decision === "deny") return `Permission denied${note}: the pretend cache stays.`;
  const forRun = o.answer.decision === "allow_for_run" ? ` — and for the rest of this run (${o.answer.scope})` : "";
  return `Permission granted${forRun}${note}: cleaning the pretend cache (nothing real is deleted).`;
}

/**
 * `--ask`: ask the room for a permission and wait for the answer, still obeying commands
 * meanwhile (`safePoint`: a cancel or a stop there throws, which withdraws the ask); say
 * what the answer made us do, and report it applied.
 */
export async function askRoom(
  run: RunHandle,
  waker: Waker,
  safePoint: () => Promise<void>,
  log: (line: string) => void,
) {
  const withdraw = new AbortController();
  const outcome = run.ask(DEMO_ASK, { signal: withdraw.signal });
  outcome.catch(() => {}); // awaited below; a withdrawn ask's end is nobody's concern
  log(`demo: asking the room: may I run "${DEMO_ASK.kind === "permission" ? DEMO_ASK.command : ""}"? (waiting)`);
  try {
    for (;;) {
      const o = await Promise.race([outcome, waker.idle().then(() => null)]);
      if (!o) {
        await safePoint();
        continue;
      }
      const text = afterAnswer(o);
      await run.message(text);
      log(`demo: ${o.kind === "answered" ? `answered ${o.answer.decision}` : `ask ${o.reason}`}: ${text}`);
      if (o.kind === "answered") await o.apply();
      return;
    }
  } finally {
    withdraw.abort();
  }
}
