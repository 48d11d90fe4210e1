import type { StartRequest } from "@/lib/core/protocol/runner-contract";
import type { Adapter } from "./adapter";
import type { RunAsks } from "./asks";
import type { Outbox } from "./outbox";

/** What a job needs from its runner. */
export interface JobSetup {
  req: StartRequest;
  adapter: Adapter;
  out: Outbox;
  actor: { kind: "harness"; id: string };
  repoDir: string;
  worktree: string;
  baseSha: string;
  branch: string;
  jobDir: string;
  /** The job's environment: a clean base, its secrets, `CHIPS_JOB`. */
  env: Record<string, string>;
  cleanup: "keep" | "remove";
  stopGraceMs: { int: number; term: number };
  checkTimeoutMs: number;
  /** [RN6] The `ask` profile's permissions (null: the profile asks nobody). */
  asks: RunAsks | null;
  askSeconds: number;
}
