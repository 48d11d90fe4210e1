import path from "node:path";
import { KeyedLock } from "@/lib/core/async/keyed-lock";
import { LockHeld, waitForPidLock, type PidLock } from "@/lib/core/node/pid-lock";
import { git } from "./git-exec";

/**
 * Worktree changes of one repository, one at a time on this machine ([RN10]). git reads every
 * entry under `.git/worktrees` while it adds, lists or removes one, and an entry another `add`
 * has half-written (or a `remove` half-deleted) fails it: "failed to read
 * .git/worktrees/<name>/commondir". A runner with capacity for several runs starts their
 * worktrees at the same moment, and two runners on one machine may serve one repository:
 * within a process a `KeyedLock`, between processes a PID lock file in the repository's
 * common git directory (so a linked worktree given as `--repo` shares it), which a runner
 * killed while holding it leaves stale, not held.
 */
const worktreeLocks = new KeyedLock();
const commonDirs = new Map<string, Promise<string>>();

/** The lock file other processes' worktree changes of the repository wait on. */
export const WORKTREE_LOCK = "chips-worktrees.lock";

/** How long a worktree change waits for another process's before the run is refused. */
const LOCK_WAIT_MS = 5 * 60_000;

/** The repository's common git directory, absolute (asked of git once per repository). */
function commonDir(repoDir: string): Promise<string> {
  const key = path.resolve(repoDir);
  let dir = commonDirs.get(key);
  if (!dir) {
    dir = git(key, ["rev-parse", "--git-common-dir"]).then((out) => path.resolve(key, out.trim()));
    dir.catch(() => commonDirs.delete(key));
    commonDirs.set(key, dir);
  }
  return dir;
}

/** `work` (a worktree add or remove of `repoDir`) once no other in this process or on this machine runs. */
export async function oneAtATime<T>(repoDir: string, work: () => Promise<T>, waitMs = LOCK_WAIT_MS): Promise<T> {
  const common = await commonDir(repoDir);
  return worktreeLocks.run(common, async () => {
    let lock: PidLock;
    try {
      lock = await waitForPidLock(path.join(common, WORKTREE_LOCK), waitMs);
    } catch (e) {
      if (!(e instanceof LockHeld)) throw e;
      throw new Error(
        `another process (PID ${e.holder.pid}) held this repository's worktree lock for the ${Math.round(waitMs / 1000)} s this waited: ${e.file}`,
        { cause: e },
      );
    }
    try {
      return await work();
    } finally {
      lock.release();
    }
  });
}
