import type { Marker } from "./words";

/** What the generator decided for one run: the ground truth of filters and searches. */
export interface RunFacts {
  /** The run's id in the generated log (an import maps it). */
  id: string;
  room: string;
  harness: string | null;
  /** `codex`/`claude` for a runner's run, an agent id for an agent's, else null. */
  agent: string | null;
  /** The person who queued it (runner runs). */
  person: string | null;
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  startedAt: string;
  durationMs: number | null;
  hasChangeSet: boolean;
  failedChecks: number;
  /** Words of MARKERS the run's texts carry. */
  markers: Marker[];
  steps: { planned: number; done: number; skipped: number; added: number; reordered: boolean; unfinished: number };
  commands: number;
  events: number;
}
