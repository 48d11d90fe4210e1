import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireDirLock } from "../db/dir-lock";
import { until } from "./support/feed";

const ROOT = path.resolve(import.meta.dirname, "..");
const children: ChildProcess[] = [];
const lockers: number[] = [];
afterEach(() => {
  for (const pid of lockers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone (or a zombie its sleep-parent takes down)
    }
  }
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

/** A node process that takes the lock on `dir`, then exits (`hold: false`) or keeps running. */
function locker(dir: string, hold: boolean): { pid: Promise<number> } {
  const script = `import { acquireDirLock } from ${JSON.stringify(path.join(ROOT, "db/dir-lock.ts"))}; acquireDirLock(${JSON.stringify(dir)}); ${hold ? "setInterval(() => {}, 1000);" : "process.exit(0);"}`;
  const node = `${JSON.stringify(process.execPath)} --import tsx --input-type=module -e ${JSON.stringify(script).replace(/\$/g, "\\$")}`;
  // The shell starts the locker in the background, prints its PID, then becomes `sleep`, which never
  // reaps it: once the locker exits it stays a zombie, as a child of a parent that forgot to wait.
  const sh = spawn("sh", ["-c", `${node} & echo $!; exec sleep 60`], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(sh);
  let out = "";
  return {
    pid: new Promise((resolve) =>
      sh.stdout!.on("data", (d) => {
        out += d;
        if (!/\d+\n/.test(out)) return;
        lockers.push(Number(out.trim()));
        resolve(Number(out.trim()));
      }),
    ),
  };
}

const state = (pid: number) => {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return s.slice(s.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return "gone";
  }
};

describe("the data directory lock", () => {
  it("a live holder is refused with its PID", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-lock-"));
    const pid = await locker(dir, true).pid;
    await until(() => fs.existsSync(path.join(dir, "chips.lock")), "the locker holds the lock");
    expect(() => acquireDirLock(dir)).toThrow(new RegExp(`in use by another Chips server \\(PID ${pid}`));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a zombie holder (exited, not reaped) holds nothing: the lock is taken over", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-lock-"));
    const pid = await locker(dir, false).pid;
    await until(() => state(pid) === "Z", "the locker is a zombie");
    expect(JSON.parse(fs.readFileSync(path.join(dir, "chips.lock"), "utf8")).pid).toBe(pid);
    const lock = acquireDirLock(dir);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "chips.lock"), "utf8")).pid).toBe(process.pid);
    lock.release();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a PID now used by another process (another start time) holds nothing", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-lock-"));
    const boot = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    // Our parent is alive, but it is not the process that wrote this lock.
    fs.writeFileSync(
      path.join(dir, "chips.lock"),
      JSON.stringify({ pid: process.ppid, boot_id: boot, started_at: "then", start_ticks: "1" }),
    );
    const lock = acquireDirLock(dir);
    lock.release();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
