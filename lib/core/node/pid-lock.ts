import fs from "node:fs";

/** A lock file taken: `release` removes it (once; a lock another process took over stays). */
export interface PidLock {
  release(): void;
}

/** What a lock file holds: who took it, so a reader can tell whether it still runs. */
export interface Holder {
  pid: number;
  boot_id: string;
  started_at: string;
  /** The holder's start time in clock ticks since boot (/proc/PID/stat field 22): tells a reused PID apart. */
  start_ticks?: string;
}

/** A process's state letter and start time from /proc; null when it has no entry (gone, or not Linux). */
function procStat(pid: number): { state: string; startTicks: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces or parentheses, so split after the last ")".
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: rest[0], startTicks: rest[19] };
  } catch {
    return null;
  }
}

function bootId(): string {
  try {
    return fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "unknown";
  }
}

/**
 * Whether the lock's holder still runs. A zombie (exited, not yet reaped by its parent)
 * answers signal 0 like a live process but holds nothing; a PID reused by another process
 * has another start time. Both are stale.
 */
function alive(holder: Holder): boolean {
  if (fs.existsSync("/proc/self/stat")) {
    const st = procStat(holder.pid);
    if (!st || st.state === "Z" || st.state === "X") return false;
    if (holder.start_ticks && st.startTicks !== holder.start_ticks) return false;
    return true;
  }
  const pid = holder.pid;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The lock is held by a process that still runs. */
export class LockHeld extends Error {
  constructor(
    readonly file: string,
    readonly holder: Holder,
  ) {
    super(`${file} is held by PID ${holder.pid} since ${holder.started_at}`);
    this.name = "LockHeld";
  }
}

/**
 * An exclusive lock between the processes of one machine: a file holding its owner's PID,
 * start time and boot id. It is stale once that process is gone (a `kill -9` leaves it behind)
 * or the machine rebooted, and then taken over; a live holder throws {@link LockHeld}. A
 * holder with this process's own PID counts as stale too: one process keeps its own callers
 * apart (a `KeyedLock`).
 */
export function takePidLock(file: string): PidLock {
  const me: Holder = {
    pid: process.pid,
    boot_id: bootId(),
    started_at: new Date().toISOString(),
    start_ticks: procStat(process.pid)?.startTicks,
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      // Written whole under another name, then linked into place: link() fails if the lock
      // exists, and the lock never exists empty. (Created with open(wx) and then written, a
      // second process starting in that instant read it empty, took it for stale and took it.)
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(me), { mode: 0o600 });
      try {
        fs.linkSync(tmp, file);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            const now = JSON.parse(fs.readFileSync(file, "utf8")) as Holder;
            if (now.pid === me.pid) fs.unlinkSync(file);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    let holder: Holder | null = null;
    try {
      holder = JSON.parse(fs.readFileSync(file, "utf8")) as Holder;
    } catch {
      holder = null; // Torn or empty: its writer died mid-write, so it is stale.
    }
    if (holder && holder.pid !== process.pid && holder.boot_id === me.boot_id && alive(holder))
      throw new LockHeld(file, holder);
    // Stale: take it over. Rename first so two takers cannot both delete a fresh lock.
    try {
      fs.renameSync(file, `${file}.stale-${process.pid}`);
      fs.unlinkSync(`${file}.stale-${process.pid}`);
    } catch {
      // Someone else removed it first; try again.
    }
  }
  throw new Error(`could not take the lock ${file}`);
}

/**
 * {@link takePidLock}, waiting while a live process holds it: tried again every 20–250 ms
 * until `waitMs` have passed, then its last {@link LockHeld} is thrown.
 */
export async function waitForPidLock(file: string, waitMs: number): Promise<PidLock> {
  const deadline = Date.now() + waitMs;
  for (let pause = 20; ; pause = Math.min(pause * 2, 250)) {
    try {
      return takePidLock(file);
    } catch (e) {
      if (!(e instanceof LockHeld) || Date.now() >= deadline) throw e;
    }
    await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
  }
}
