import type { CheckResult, ObjectRef } from "@/lib/core/protocol/runner-contract";
import { inScope } from "@/lib/core/protocol/scope";
import { killJobProcesses, launch, stopGroup } from "./process";

export interface CheckOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  upload: (bytes: Buffer) => Promise<ObjectRef>;
  onStart?: (command: string) => void;
}

/**
 * The required commands, one after another in the worktree after the agent: each one's exit
 * code and whole output (to the object store, [RN3]) is the check's evidence — the bytes it
 * printed on stdout and stderr as they came, never re-lined or decoded, masked ([RN4]) by
 * the upload. A command that runs past the timeout is stopped and fails.
 */
export async function runChecks(commands: string[], o: CheckOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const command of commands) {
    o.onStart?.(command);
    const started = Date.now();
    const out: Buffer[] = [];
    const proc = launch({
      cmd: "/bin/sh",
      args: ["-c", command],
      cwd: o.cwd,
      env: o.env as unknown as NodeJS.ProcessEnv,
      onLine: () => {},
      onData: (chunk) => out.push(chunk),
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stopGroup(proc, { graceMs: { int: 1000, term: 2000 } });
    }, o.timeoutMs);
    const exit = await proc.exited;
    clearTimeout(timer);
    await killJobProcesses(o.env.CHIPS_JOB ?? "");
    if (timedOut) out.push(Buffer.from(`\n[chips] stopped after ${Math.round(o.timeoutMs / 1000)} s\n`));
    const output = await o.upload(Buffer.concat(out));
    results.push({
      command,
      exit_code: exit.code,
      passed: !timedOut && exit.code === 0,
      duration_ms: Date.now() - started,
      output,
    });
  }
  return results;
}

/** The scope check's command name in a change-set's checks ([TSK5]). */
export const SCOPE_CHECK = "chips: write scope";

/**
 * [TSK5] The runner never broadens what was granted: after the agent, every path the change-set
 * touches must be inside the claimed write scope. A check like a required command's: it fails
 * with the paths outside the scope as its output.
 */
export async function scopeCheck(
  paths: string[],
  scope: string[],
  upload: (bytes: Buffer) => Promise<ObjectRef>,
): Promise<CheckResult & { outside: string[] }> {
  const outside = paths.filter((p) => !inScope(p, scope));
  const text = outside.length
    ? `outside the write scope (${scope.join(", ")}):\n${outside.join("\n")}\n`
    : `every changed path is inside the write scope (${scope.join(", ")})\n`;
  return {
    command: SCOPE_CHECK,
    exit_code: outside.length ? 1 : 0,
    passed: !outside.length,
    duration_ms: 0,
    output: await upload(Buffer.from(text)),
    outside,
  };
}
