import path from "node:path";
import { LockHeld, takePidLock, type PidLock } from "../lib/core/node/pid-lock";

/**
 * An exclusive lock on a PGlite data directory (`chips.lock` in it, see the kernel's PID
 * lock): a restart after `kill -9` works; a second live server is refused, naming the first.
 */
export function acquireDirLock(dir: string): PidLock {
  try {
    return takePidLock(path.join(dir, "chips.lock"));
  } catch (e) {
    if (!(e instanceof LockHeld)) throw e;
    throw new Error(
      `The data directory ${dir} is in use by another Chips server (PID ${e.holder.pid}, since ${e.holder.started_at}). ` +
        `Stop it, or start this one with another CHIPS_DATA_DIR or with DATABASE_URL.`,
      { cause: e },
    );
  }
}
