import { clipUtf8 } from "../../core/protocol/clip";
import { LIMITS } from "../../core/protocol/limits";
import type { PlanStep } from "../sdk";

const TITLES = [
  "Read the brief",
  "Survey the code",
  "Sketch the change",
  "Write the change",
  "Run the tests",
  "Fix what the tests found",
  "Tidy up",
  "Write the summary",
];

const VERBS: Record<string, string> = {
  "Read the brief": "Reading the brief",
  "Survey the code": "Surveying the code",
  "Sketch the change": "Sketching the change",
  "Write the change": "Writing the change",
  "Run the tests": "Running the tests",
  "Fix what the tests found": "Fixing what the tests found",
  "Tidy up": "Tidying up",
  "Write the summary": "Writing the summary",
};

/** One step of the demo's work: a plan step, or one added because a person steered. */
export interface DemoStep extends PlanStep {
  /** The guidance it came from (added with a title by run.step, not in the plan). */
  guidance?: string;
}

/** The demo's plan: `n` pretend steps (`step-1` …), titles cycling through a short list. */
export function makePlan(n: number): DemoStep[] {
  return Array.from({ length: n }, (_, i) => {
    const base = TITLES[i % TITLES.length];
    const round = Math.floor(i / TITLES.length);
    return { step_id: `step-${i + 1}`, title: round ? `${base} (round ${round + 1})` : base };
  });
}

/** The step a steer adds: titled from the guidance, so the room shows what changed. */
export function steeredStep(n: number, guidance: string): DemoStep {
  return { step_id: `steer-${n}`, title: clipUtf8(`Follow guidance: ${guidance}`, LIMITS.title), guidance };
}

/** What the typing indicator says during a step. */
export function verbPhrase(step: DemoStep): string {
  if (step.guidance) return clipUtf8(`Following guidance: ${step.guidance}…`, LIMITS.verbPhrase);
  const plain = step.title.replace(/ \(round \d+\)$/, "");
  return `${VERBS[plain] ?? step.title}…`;
}

/**
 * Progress that never goes back ([RUN1]: `progress` never decreases within a run), though
 * steering adds work: the fraction of ticks done, held at its highest so far.
 */
export class Progress {
  private best = 0;

  /** Progress after `doneTicks` of `totalTicks`, rounded to 0.001, never below the last answer. */
  at(doneTicks: number, totalTicks: number): number {
    const raw = totalTicks > 0 ? Math.min(1, doneTicks / totalTicks) : 1;
    this.best = Math.max(this.best, Math.floor(raw * 1000) / 1000);
    return this.best;
  }
}
