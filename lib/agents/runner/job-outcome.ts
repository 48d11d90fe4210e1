import { clipUtf8 } from "@/lib/core/protocol/clip";
import type { JobExit } from "./process";
import type { Translator } from "./translate";

/** How much of the agent's last stderr lines a failure's summary quotes. */
const STDERR_TAIL_BYTES = 500;

/** The agent's last 40 stderr lines, for the summary of a run it left without finishing. */
export class StderrTail {
  private lines: string[] = [];

  push(line: string) {
    this.lines.push(line);
    if (this.lines.length > 40) this.lines.shift();
  }

  /** `: <the last three non-blank lines>`, clipped; empty when it said nothing. */
  text() {
    const tail = this.lines
      .filter((l) => l.trim())
      .slice(-3)
      .join(" / ");
    return tail ? `: ${clipUtf8(tail, STDERR_TAIL_BYTES)}` : "";
  }
}

/** Whether the agent's part went well (its turn completed, exit 0), and if not, why. */
export function agentVerdict(
  agent: string,
  exit: JobExit,
  launchError: string | undefined,
  t: Translator,
  stderr: StderrTail,
): { ok: boolean; why: string | null } {
  const ok = !launchError && t.turnCompleted && exit.code === 0 && !t.failure;
  const why =
    launchError ??
    t.failure ??
    (ok ? null : `${agent} exited (${exit.signal ?? `code ${exit.code}`}) without completing its turn${stderr.text()}`);
  return { ok, why };
}

/** A finished run's summary: why it failed, else what the scope check or the checks found, else the agent's last word. */
export function finishSummary(
  why: string | null,
  outsideScope: string[],
  checksFailed: number,
  lastMessage: string | null,
): string {
  return (
    why ??
    (outsideScope.length
      ? `changed paths outside the write scope: ${outsideScope.slice(0, 20).join(", ")}`
      : checksFailed
        ? `${checksFailed} required command(s) failed`
        : (lastMessage ?? "Done."))
  );
}
