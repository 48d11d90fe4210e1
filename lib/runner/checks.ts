import type { CheckResult, ObjectRef } from "@/lib/runner";
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
 * code and whole output (to the object store) is the check's evidence. A command that runs
 * past the timeout is stopped and fails.
 */
export async function runChecks(commands: string[], o: CheckOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const command of commands) {
    o.onStart?.(command);
    const started = Date.now();
    const out: string[] = [];
    const proc = launch({ cmd: "/bin/sh", args: ["-c", command], cwd: o.cwd, env: o.env as unknown as NodeJS.ProcessEnv, onLine: (l) => out.push(l), onStderr: (l) => out.push(l) });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stopGroup(proc, { graceMs: { int: 1000, term: 2000 } });
    }, o.timeoutMs);
    const exit = await proc.exited;
    clearTimeout(timer);
    await killJobProcesses(o.env.CHIPS_JOB ?? "");
    if (timedOut) out.push(`[chips] stopped after ${Math.round(o.timeoutMs / 1000)} s`);
    const output = await o.upload(Buffer.from(out.join("\n") + (out.length ? "\n" : "")));
    results.push({ command, exit_code: exit.code, passed: !timedOut && exit.code === 0, duration_ms: Date.now() - started, output });
  }
  return results;
}
