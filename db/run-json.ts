/** Shapes of the JSON columns of the runs read model. */
export interface PlanStepModel {
  step_id: string;
  title: string;
  state: "pending" | "active" | "done" | "failed" | "skipped";
  note?: string;
  /** Added by a run.step with a title, after the run started. */
  added?: boolean;
  started_at?: string;
  finished_at?: string;
  updated_seq?: number;
}

export interface StatusModel {
  phase: string;
  verb_phrase: string;
  progress?: number;
  estimate_seconds?: number;
  ts: string;
  seq: number;
  actor: { kind: string; id: string; harness_id?: string };
}

export interface UsageModel {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
  cost_usd?: number;
}

export interface RunModelJson {
  actor: { kind: string; id: string; harness_id?: string } | null;
  plan: PlanStepModel[];
  status: StatusModel | null;
  usage: UsageModel | null;
}

/** Runner-run columns: shapes from the runner contract (lib/runner.ts), stored as sent. */
export interface RunnerJson {
  request: {
    repository: string;
    base_branch: string;
    agent: string;
    profile: string;
    required_commands: string[];
    secrets: string[];
    model?: string;
  } | null;
  runner: { id: string; name: string } | null;
  checkpoint: Record<string, unknown> | null;
  changeSet: Record<string, unknown> | null;
}
