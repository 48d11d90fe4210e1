// lib/agents/runner/process.ts against real processes: output by lines, group stop, and the sweep
// for processes that escaped the group into a new session (as Codex's tool commands do).
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { jobProcesses, killJobProcesses, launch, stopGroup } from "@/lib/agents/runner/process";

const jobs: string[] = [];
function jobId(): string {
  const id = `test-${process.pid}-${randomUUID()}`;
  jobs.push(id);
  return id;
}
// Whatever a failing test leaves behind.
afterEach(async () => {
  for (const id of jobs.splice(0)) await killJobProcesses(id);
});

function start(script: string, id: string) {
  const out: string[] = [];
  const err: string[] = [];
  const job = launch({
    cmd: "bash",
    args: ["-c", script],
    cwd: os.tmpdir(),
    env: { ...process.env, CHIPS_JOB: id },
    onLine: (l) => out.push(l),
    onStderr: (l) => err.push(l),
  });
  return { job, out, err };
}

/** Session id and process group of a pid, from /proc/<pid>/stat. */
function ids(pid: number): { pgrp: number; session: number; comm: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pgrp: Number(f[2]), session: Number(f[3]), comm };
  } catch {
    return null;
  }
}

describe("launch", () => {
  it("streams stdout and stderr by lines, across split UTF-8 and a last unterminated line", async () => {
    const { job, out, err } = start(
      `printf 'caf\\xc3'; sleep 0.2; printf '\\xa9\\r\\nsecond\\nno newline'; echo oops >&2`,
      jobId(),
    );
    expect(job.pid).toBeGreaterThan(1);
    expect(await job.exited).toEqual({ code: 0, signal: null });
    expect(out).toEqual(["café", "second", "no newline"]);
    expect(err).toEqual(["oops"]);
  });

  it("throws at once for a command that does not exist", () => {
    expect(() =>
      launch({ cmd: "/no/such/agent", args: [], cwd: os.tmpdir(), env: process.env, onLine: () => {} }),
    ).toThrow(/cannot start/);
  });
});

describe("stopGroup and the CHIPS_JOB sweep", () => {
  it("[RUN1] cancel: stops the group with SIGINT; the sweep ends the child that escaped into a new session", async () => {
    const id = jobId();
    const { job, out } = start(`echo a; echo b; setsid sleep 60 & echo "escaped $!"; sleep 60; echo after`, id);
    await vi.waitFor(() => expect(out.slice(0, 3)).toEqual(["a", "b", expect.stringMatching(/^escaped \d+$/)]));
    const escaped = Number(out[2]!.split(" ")[1]);
    // Wait until setsid has actually moved it out: its own session and group, now running sleep.
    await vi.waitFor(() => expect(ids(escaped)).toEqual({ pgrp: escaped, session: escaped, comm: "sleep" }));
    // bash, its foreground sleep (once forked; the trailing echo stops bash exec'ing it in its
    // place), and the escaped sleep.
    await vi.waitFor(() => expect(jobProcesses(id).length).toBe(3));
    expect(jobProcesses(id)).toContain(job.pid);
    expect(jobProcesses(id)).toContain(escaped);

    // A long SIGINT grace: the claim is that SIGINT ends the group, however loaded the machine.
    const stopped = await stopGroup(job, { graceMs: { int: 30_000, term: 3000 } });
    expect(stopped.signals).toEqual(["SIGINT"]);
    expect(job.child.exitCode !== null || job.child.signalCode !== null).toBe(true);
    // The group signal did not reach it: it is alive, and still holds bash's stdout open.
    expect(jobProcesses(id)).toEqual([escaped]);

    expect(await killJobProcesses(id)).toEqual([escaped]);
    expect(jobProcesses(id)).toEqual([]);
    // Only now, with the last writer of the pipe gone, is all output read.
    const exit = await job.exited;
    expect(exit.signal ?? exit.code).toBeTruthy();
    expect(await stopGroup(job)).toEqual({ signals: [] });
  });

  it("[RUN1] cancel: escalates to SIGKILL for a process that ignores SIGINT and SIGTERM", async () => {
    const id = jobId();
    const { job, out } = start(`trap '' INT TERM; echo ready; sleep 60; echo survived`, id);
    await vi.waitFor(() => expect(out).toEqual(["ready"]));
    await vi.waitFor(() => expect(jobProcesses(id).length).toBe(2));
    const t0 = Date.now();
    const stopped = await stopGroup(job, { graceMs: { int: 300, term: 300 } });
    expect(stopped.signals).toEqual(["SIGINT", "SIGTERM", "SIGKILL"]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
    expect(await job.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(out).toEqual(["ready"]);
    expect(jobProcesses(id)).toEqual([]);
    expect(await killJobProcesses(id)).toEqual([]);
  });

  it("does not throw for a job that has already ended", async () => {
    const { job } = start(`exit 3`, jobId());
    expect(await job.exited).toEqual({ code: 3, signal: null });
    expect(await stopGroup(job)).toEqual({ signals: [] });
  });

  it("matches CHIPS_JOB exactly, not by prefix", async () => {
    const id = jobId();
    const { job } = start(`echo up; sleep 60`, id);
    await vi.waitFor(() => expect(jobProcesses(id)).toContain(job.pid));
    expect(jobProcesses(id.slice(0, -1))).toEqual([]);
    expect(jobProcesses(`${id}x`)).toEqual([]);
    await stopGroup(job);
    expect(jobProcesses(id)).toEqual([]);
  });
});
