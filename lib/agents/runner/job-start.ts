import fs from "node:fs";
import path from "node:path";
import { ASK_PROFILE_SECONDS, type StartRequest } from "@/lib/core/protocol/runner-contract";
import type { Adapter } from "./adapter";
import { jobAsks } from "./job-asks";
import { jobContext, jobEnv } from "./environment";
import { createWorktree, resolveBase } from "./git";
import { RunJob } from "./job";
import type { SecretMask } from "./mask";
import type { Outbox } from "./outbox";

/** What a runner was given that the jobs it starts are made with. */
export interface JobStartConfig {
  url: string;
  token: string;
  workDir: string;
  secrets?: Record<string, string>;
  cleanup?: "keep" | "remove";
  stopGraceMs?: { int: number; term: number };
  checkTimeoutMs?: number;
  askSeconds?: number;
}

/** A job made (not begun yet), and where: its worktree, on `branch` from `baseSha`. */
export type MadeJob = { job: RunJob; worktree: string; baseSha: string; branch: string } | { refused: string };

/**
 * What a start request the runner admitted ([RN1]) makes before its agent launches: the
 * worktree on its own branch, the job's private directory, the adapter's preparation, the
 * `ask` profile's permissions ([RN6]) and the {@link RunJob}. A worktree that cannot be made
 * refuses the run, with why.
 */
export async function makeJob(
  o: JobStartConfig,
  req: StartRequest,
  admitted: { repoDir: string; adapter: Adapter },
  out: Outbox,
  actor: { kind: "harness"; id: string },
  mask: SecretMask,
  log: (line: string) => void,
): Promise<MadeJob> {
  const { repoDir, adapter } = admitted;
  const worktreesDir = path.join(o.workDir, "worktrees");

  let baseSha: string;
  let worktree: string;
  const branch = `chips/${req.worktree_name}`;
  try {
    baseSha = await resolveBase(repoDir, req.base_branch);
    fs.mkdirSync(worktreesDir, { recursive: true });
    worktree = await createWorktree(repoDir, worktreesDir, req.worktree_name, baseSha, branch);
  } catch (e) {
    return { refused: `cannot make the worktree: ${(e as Error).message}` };
  }
  const jobDir = path.join(o.workDir, "jobs", req.run_id);
  fs.mkdirSync(jobDir, { recursive: true, mode: 0o700 });
  const secrets = Object.fromEntries(req.secrets.map((s) => [s, o.secrets![s]]));
  const askSeconds = o.askSeconds ?? ASK_PROFILE_SECONDS;
  const ctx = jobContext(req, worktree, jobDir, askSeconds);
  await adapter.prepare(ctx);
  const asks = jobAsks({
    url: o.url,
    token: o.token,
    req,
    adapter,
    actor,
    out,
    seconds: askSeconds,
    redact: (t) => mask.text(t),
    log,
  });

  const job = new RunJob({
    req,
    adapter,
    out,
    actor,
    repoDir,
    worktree,
    baseSha,
    branch,
    jobDir,
    env: jobEnv(secrets),
    cleanup: o.cleanup ?? "keep",
    stopGraceMs: o.stopGraceMs ?? { int: 2000, term: 3000 },
    checkTimeoutMs: o.checkTimeoutMs ?? 10 * 60_000,
    asks,
    askSeconds,
  });
  return { job, worktree, baseSha, branch };
}
