/**
 * Launching an agent CLI and stopping it for sure.
 *
 * The agent runs in its own process group (`detached`), so one signal to the group reaches
 * the CLI and every ordinary child. That is not enough: Codex starts each tool command in a
 * new session (its sandbox calls setsid), out of the group. So every process of a job also
 * carries `CHIPS_JOB=<jobId>` in its environment — inherited through fork/exec and
 * untouched by setsid — and {@link killJobProcesses} sweeps `/proc` for it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/** What {@link launch} runs. Put `CHIPS_JOB=<jobId>` in `env` so the sweep can find strays. */
export interface LaunchOptions {
  cmd: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Each complete stdout line, without its `\n` (and `\r`); a last unterminated line too. */
  onLine: (line: string) => void;
  /** Each stderr line, likewise. */
  onStderr?: (line: string) => void;
  /** The raw bytes of stdout and stderr, interleaved in the order they arrived (a check's evidence, byte for byte). */
  onData?: (chunk: Buffer) => void;
  /** Keep stdin open as a pipe (`child.stdin`) for a CLI that takes its input there; default closed. */
  stdin?: "pipe";
}

/** How a job's leader process ended. */
export interface JobExit {
  code: number | null;
  signal: string | null;
}

/** A launched process: the leader of its own process group. */
export interface Job {
  pid: number;
  /** Resolves after the leader exited and its stdout/stderr closed (every line delivered). */
  exited: Promise<JobExit>;
  /** The Node handle, for whoever needs more than the above. */
  child: ChildProcess;
}

/** Feeds a stream to `each` line by line; chunks may split lines and UTF-8 characters. */
function lines(stream: Readable, each: (line: string) => void): void {
  const decoder = new StringDecoder("utf8");
  let partial = "";
  const emit = (text: string, final: boolean) => {
    partial += text;
    let nl: number;
    while ((nl = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      each(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    if (final && partial !== "") {
      each(partial);
      partial = "";
    }
  };
  stream.on("data", (chunk: Buffer) => emit(decoder.write(chunk), false));
  stream.on("end", () => emit(decoder.end(), true));
}

/**
 * Starts `cmd` in its own process group with stdin closed (agent CLIs wait for EOF on an
 * open stdin), or a pipe when asked, and streams its output by lines. Throws at once if the process could not be
 * started (command or cwd missing).
 */
export function launch(opts: LaunchOptions): Job {
  const child = spawn(opts.cmd, opts.args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: [opts.stdin ?? "ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) {
    // The reason arrives as an 'error' event on the next tick; without a listener it would crash us.
    child.once("error", () => {});
    throw new Error(`cannot start ${opts.cmd} in ${opts.cwd}: not found or not executable`);
  }
  const exited = new Promise<JobExit>((resolve) => {
    // 'close' (not 'exit'): after the leader exited AND its pipes closed, so no line is lost.
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  // A CLI that exits before reading all its input closes the pipe: EPIPE is its business, not a crash.
  child.stdin?.on("error", () => {});
  lines(child.stdout!, opts.onLine);
  lines(child.stderr!, opts.onStderr ?? (() => {}));
  if (opts.onData) {
    child.stdout!.on("data", opts.onData);
    child.stderr!.on("data", opts.onData);
  }
  return { pid: child.pid, exited, child };
}

/** Signals a process group; false if it no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  // Guard: kill(-0) is our own group and kill(-1) is every process we may signal.
  if (!(pgid > 1)) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw e;
  }
}

/**
 * Whether any live (non-zombie) process is in group `pgid`. `kill(-pgid, 0)` alone would
 * count zombies — dead members whose new parent has not reaped them yet, which in a
 * container without a reaping init can be forever — so read `/proc/<pid>/stat` instead.
 */
function groupAlive(pgid: number): boolean {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return signalGroup(pgid, 0); // no /proc: the best available answer
  }
  for (const name of entries) {
    if (!/^[0-9]+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue;
    }
    // "pid (comm) S ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) === pgid && f[0] !== "Z" && f[0] !== "X") return true;
  }
  return false;
}

/** True once the leader has exited (reaped by Node) and no live process is left in its group. */
function gone(job: Job): boolean {
  const leaderDone = job.child.exitCode !== null || job.child.signalCode !== null;
  return leaderDone && !groupAlive(job.pid);
}

async function waitGone(job: Job, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  // Polling: a group has no exit event, and its members are not our children.
  while (!gone(job)) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 40));
  }
  return true;
}

/** Grace periods of {@link stopGroup}: after SIGINT (let the CLI save its state), after SIGTERM. */
export interface StopOptions {
  graceMs?: { int: number; term: number };
}

/**
 * Stops a job's whole process group: SIGINT, up to `int` ms for it to end, SIGTERM, up to
 * `term` ms, then SIGKILL. Returns the signals it sent (none if all was already over).
 * Never throws for a group that has already gone. Processes that left the group (new
 * sessions) are not reached: follow with {@link killJobProcesses}.
 */
export async function stopGroup(job: Job, opts: StopOptions = {}): Promise<{ signals: string[] }> {
  const grace = opts.graceMs ?? { int: 2000, term: 3000 };
  const signals: string[] = [];
  for (const [sig, ms] of [
    ["SIGINT", grace.int],
    ["SIGTERM", grace.term],
  ] as const) {
    if (gone(job)) return { signals };
    if (signalGroup(job.pid, sig)) signals.push(sig);
    if (await waitGone(job, ms)) return { signals };
  }
  if (gone(job)) return { signals };
  if (signalGroup(job.pid, "SIGKILL")) signals.push("SIGKILL");
  // A leader that moved itself out of its group is still ours (unreaped, so its pid is not reused).
  if (job.child.exitCode === null && job.child.signalCode === null) {
    try {
      process.kill(job.pid, "SIGKILL");
      if (!signals.includes("SIGKILL")) signals.push("SIGKILL");
    } catch {
      // ESRCH: it died meanwhile.
    }
  }
  await waitGone(job, 5000);
  return { signals };
}

/**
 * The pids of every live process whose environment holds exactly `CHIPS_JOB=<jobId>`
 * (never this process). Reads `/proc/<pid>/environ`: the environment a process was exec'd
 * with. Processes that vanish or cannot be read are skipped; zombies have an empty environ
 * and are not listed. Without `/proc` (not Linux) it finds nothing.
 */
export function jobProcesses(jobId: string): number[] {
  if (!jobId) throw new Error("jobProcesses needs a job id");
  const needle = Buffer.from(`CHIPS_JOB=${jobId}`);
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of entries) {
    if (!/^[0-9]+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = fs.readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // ENOENT (exited), EACCES (another user's), ESRCH
    }
    // Entries are NUL-separated; compare whole entries so CHIPS_JOB=ab does not match job a.
    let start = 0;
    while (start < environ.length) {
      let end = environ.indexOf(0, start);
      if (end < 0) end = environ.length;
      if (end - start === needle.length && environ.subarray(start, end).equals(needle)) {
        found.push(pid);
        break;
      }
      start = end + 1;
    }
  }
  return found;
}

/**
 * The sweep: SIGKILLs every process of the job ({@link jobProcesses}), again until none is
 * left (a process may fork while we kill), and returns their pids. Waits briefly for them to
 * die so a caller can check that nothing remains. Each pid is killed right after its environ
 * matched; a pid reused in between is the one race this cannot close.
 */
export async function killJobProcesses(jobId: string): Promise<number[]> {
  const killed = new Set<number>();
  const unkillable = new Set<number>();
  const until = Date.now() + 5000;
  for (;;) {
    const pids = jobProcesses(jobId).filter((p) => !unkillable.has(p));
    if (pids.length === 0 || Date.now() >= until) break;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
        killed.add(pid);
      } catch (e) {
        // ESRCH: already gone. EPERM: not ours to kill — do not wait for it.
        if ((e as NodeJS.ErrnoException).code === "EPERM") unkillable.add(pid);
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return [...killed];
}
