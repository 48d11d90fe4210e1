import type { ChangeSetPayload } from "@/lib/core/protocol/runner-contract";
import { runChecks, scopeCheck } from "./checks";
import { diffBinary, diffSummary } from "./git";
import type { JobSetup } from "./job-setup";

/**
 * A job's end product: the required commands run on its work (when the agent succeeded),
 * the diff from the base to `head` uploaded, the write scope judged ([TSK5]), all posted as
 * one `change-set` runner event. Answers how many checks failed and the paths outside the scope.
 */
export async function publishChangeSet(
  s: JobSetup,
  head: string,
  runChecksToo: boolean,
  onCheck: (command: string) => void,
): Promise<{ failed: number; outside: string[] }> {
  const checks = runChecksToo
    ? await runChecks(s.req.required_commands, {
        cwd: s.worktree,
        env: { ...s.env, CHIPS_JOB: s.req.run_id },
        timeoutMs: s.checkTimeoutMs,
        upload: (b) => s.out.upload(b),
        onStart: onCheck,
      })
    : [];
  const [diff, summary] = await Promise.all([
    diffBinary(s.worktree, s.baseSha, head),
    diffSummary(s.worktree, s.baseSha, head),
  ]);
  let outsideScope: string[] = [];
  // [TSK5] whatever the agent did, the change-set is judged against the scope it was granted (all of it, `**`: nothing to judge).
  const granted = s.req.write_scope;
  if (!(granted.length === 1 && granted[0] === "**")) {
    const { outside, ...scope } = await scopeCheck(
      summary.files.map((f) => f.path),
      granted,
      (b) => s.out.upload(b),
    );
    outsideScope = outside;
    checks.push(scope);
  }
  const payload: ChangeSetPayload = {
    base_sha: s.baseSha,
    head_sha: head,
    branch: s.branch,
    files: summary.files,
    additions: summary.additions,
    deletions: summary.deletions,
    diff: await s.out.upload(diff),
    checks,
    cleanup: { policy: s.cleanup, worktree: s.worktree },
  };
  const n = summary.files.length;
  await s.out.runnerEvent(
    "change-set",
    `${n} file${n === 1 ? "" : "s"} changed, +${summary.additions} −${summary.deletions}`,
    payload,
  );
  return { failed: checks.filter((c) => !c.passed).length, outside: outsideScope };
}
