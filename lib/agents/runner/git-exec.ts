/**
 * How the runner calls git: `execFile("git", …)` — never a shell — so branch names and paths
 * are arguments, not code, with no prompts and nothing inherited that points git elsewhere.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

export const execFileP = promisify(execFile);

/** Diffs of big generated files are large; Node's 1 MiB default would cut them off. */
export const MAX_BUFFER = 512 * 1024 * 1024;

/** The environment for git: no prompts, and nothing inherited that redirects git elsewhere. */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0" };
  // Inherited from a hook or a wrapper, these would make every call act on another repository.
  for (const k of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"])
    delete env[k];
  return env;
}

/** An Error from a git call, with its exit code and stderr. */
class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = "GitError";
  }
}

/** Runs `git <args>` in `cwd` and returns its stdout; throws {@link GitError} on a non-zero exit. */
export async function git(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileP("git", args, { cwd, env: gitEnv(), maxBuffer: MAX_BUFFER, encoding: "utf8" });
    return stdout;
  } catch (e) {
    throw toGitError(args, e);
  }
}

/** Like {@link git} but returns the exit code instead of throwing on 1 (for `--quiet` probes). */
export async function gitExit(cwd: string, args: string[]): Promise<number> {
  try {
    await execFileP("git", args, { cwd, env: gitEnv(), maxBuffer: MAX_BUFFER });
    return 0;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "number") return code;
    throw toGitError(args, e);
  }
}

export function toGitError(args: string[], e: unknown): GitError {
  const err = e as { code?: unknown; stderr?: unknown; message?: string };
  const stderr = Buffer.isBuffer(err.stderr) ? err.stderr.toString("utf8") : String(err.stderr ?? "");
  const code = typeof err.code === "number" ? err.code : null;
  return new GitError(
    `git ${args[0]} failed${code === null ? "" : ` (exit ${code})`}: ${stderr.trim() || err.message}`,
    code,
    stderr,
  );
}
