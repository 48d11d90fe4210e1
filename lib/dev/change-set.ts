import { createHash } from "node:crypto";
import type { ExportDocument } from "@/lib/core/protocol";
import type { Rng } from "./rng";
import { MESSAGES } from "./words";

type StoredObject = NonNullable<ExportDocument["objects"]>[number];

interface ChangeSetRun {
  ws: string;
  runId: string;
  /** When the runner reported it (ms since epoch). */
  at: number;
  /** A failed run's change-set has `npm test` failing. */
  fail: boolean;
  /** The run's stored objects: the diff and the checks' outputs are added. */
  objects: StoredObject[];
}

/**
 * A runner's change-set as a seeded run reports it (RunWriter): files, their diff and the
 * checks, the texts stored as objects the way a runner uploads them. Answers the
 * `runner.event`'s fields and how many checks failed.
 */
export function seedChangeSet(r: Rng, run: ChangeSetRun): { fields: Record<string, unknown>; failedChecks: number } {
  const object = (text: string) => {
    const body = Buffer.from(text, "utf8");
    const sha256 = createHash("sha256").update(body).digest("hex");
    run.objects.push({ run_id: run.runId, sha256, base64: body.toString("base64") });
    return { key: `${run.ws}/${run.runId}/${sha256}`, sha256, bytes: body.length };
  };
  const files = Array.from({ length: r.int(1, 5) }, (_, k) => ({
    path: `${r.pick(["src", "lib", "test"])}/${r.pick(["invoice", "ledger", "mailer", "auth"])}-${k}.ts`,
    status: r.pick(["added", "modified", "modified", "deleted"] as const),
    additions: r.int(0, 120),
    deletions: r.int(0, 60),
    binary: false,
  }));
  const diffText = files
    .map(
      (f) =>
        `diff --git a/${f.path} b/${f.path}\n--- a/${f.path}\n+++ b/${f.path}\n@@ -1,1 +1,2 @@\n-old line\n+new line\n+${r.pick(MESSAGES)}\n`,
    )
    .join("");
  const diff = object(diffText);
  const checks = [
    { command: "npm test", passed: !run.fail, exit: run.fail ? 1 : 0 },
    { command: "npm run lint", passed: true, exit: 0 },
  ].map((c) => ({
    command: c.command,
    exit_code: c.exit,
    passed: c.passed,
    duration_ms: r.int(800, 90_000),
    output: object(c.passed ? "ok\n" : "1 failing\n  expected 3 to equal 4\n"),
  }));
  const additions = files.reduce((n, f) => n + f.additions, 0);
  const deletions = files.reduce((n, f) => n + f.deletions, 0);
  const fields = {
    sequence: 2,
    kind: "change-set",
    message: `${files.length} files changed, +${additions} −${deletions}`,
    payload: {
      base_sha: "a".repeat(40),
      head_sha: createHash("sha1").update(diffText).digest("hex"),
      branch: `chips/${run.runId.slice(-6).toLowerCase()}`,
      files,
      additions,
      deletions,
      diff,
      checks,
      cleanup: { policy: "keep", worktree: `/tmp/wt-${run.runId.slice(-6)}` },
    },
    occurred_at: new Date(run.at).toISOString(),
  };
  return { fields, failedChecks: checks.filter((c) => !c.passed).length };
}
