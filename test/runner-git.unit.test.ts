// lib/agents/runner/git.ts against real git: worktrees, checkpoints, and the diff evidence.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkpoint,
  createWorktree,
  diffBinary,
  diffSummary,
  removeWorktree,
  resolveBase,
} from "@/lib/agents/runner/git";
import { WORKTREE_LOCK } from "@/lib/agents/runner/worktree-lock";

const env = { ...process.env, GIT_TERMINAL_PROMPT: "0" };
const ident = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"];
function sh(cwd: string, args: string[], input?: Buffer): Buffer {
  return execFileSync("git", args, { cwd, env, input, maxBuffer: 64 * 1024 * 1024 });
}
const text = (cwd: string, args: string[]) => sh(cwd, args).toString("utf8").trim();

let tmp: string;
let repo: string;
let worktrees: string;
let base: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-git-"));
  repo = path.join(tmp, "repo");
  worktrees = path.join(tmp, "worktrees");
  fs.mkdirSync(repo);
  sh(repo, ["init", "-q", "-b", "main"]);
  fs.writeFileSync(path.join(repo, "edit.txt"), "one\ntwo\nthree\n");
  fs.writeFileSync(path.join(repo, "gone.txt"), "delete me\nplease\n");
  fs.writeFileSync(path.join(repo, "old-name.txt"), "a file that moves\nunchanged\nlines\nhere\n");
  sh(repo, ["add", "-A"]);
  sh(repo, [...ident, "commit", "-q", "-m", "base"]);
  base = text(repo, ["rev-parse", "HEAD"]);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("resolveBase", () => {
  it("resolves a local branch, a raw sha, and refuses option-like names", async () => {
    expect(await resolveBase(repo, "main")).toBe(base);
    expect(await resolveBase(repo, base.slice(0, 10))).toBe(base);
    await expect(resolveBase(repo, "--upload-pack=evil")).rejects.toThrow(/start with "-"/);
    await expect(resolveBase(repo, "no-such-branch")).rejects.toThrow(/no branch or commit/);
  });

  it("fetches origin and falls back to refs/remotes/origin/<branch>", async () => {
    const clone = path.join(tmp, "clone");
    execFileSync("git", ["clone", "-q", repo, clone], { env });
    // A branch that exists only on the remote, created after the clone: only a fetch finds it.
    sh(repo, ["branch", "later", base]);
    expect(await resolveBase(clone, "later")).toBe(base);
    expect(text(clone, ["rev-parse", "refs/remotes/origin/later"])).toBe(base);
    sh(repo, ["branch", "-D", "later"]);
  });
});

describe("worktree, checkpoint and evidence", () => {
  let wt: string;

  it("creates a worktree on a new branch at the base", async () => {
    wt = await createWorktree(repo, worktrees, "run-1", base, "chips/run-1");
    expect(path.isAbsolute(wt)).toBe(true);
    expect(wt).toBe(path.join(worktrees, "run-1"));
    expect(text(wt, ["rev-parse", "HEAD"])).toBe(base);
    expect(text(wt, ["branch", "--show-current"])).toBe("chips/run-1");
  });

  it("[RN1] refuses to reuse a name, a path or a branch, and changes nothing", async () => {
    const before = text(repo, ["worktree", "list", "--porcelain"]);
    const branches = text(repo, ["branch", "--list"]);
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => "resolved",
        (e: { code?: string }) => e.code,
      );
    // Same name (the directory exists).
    expect(await codeOf(createWorktree(repo, worktrees, "run-1", base, "chips/other"))).toBe("worktree_exists");
    // A new name but a branch that exists.
    expect(await codeOf(createWorktree(repo, worktrees, "run-2", base, "chips/run-1"))).toBe("worktree_exists");
    expect(fs.existsSync(path.join(worktrees, "run-2"))).toBe(false);
    // git still lists a worktree whose directory was deleted by hand (not pruned).
    const ghost = await createWorktree(repo, worktrees, "ghost", base, "chips/ghost");
    fs.rmSync(ghost, { recursive: true, force: true });
    expect(await codeOf(createWorktree(repo, worktrees, "ghost", base, "chips/ghost-2"))).toBe("worktree_exists");
    sh(repo, ["worktree", "prune"]);
    sh(repo, ["branch", "-D", "chips/ghost"]);
    expect(text(repo, ["worktree", "list", "--porcelain"])).toBe(before);
    expect(text(repo, ["branch", "--list"])).toBe(branches);
  });

  it("checkpoints nothing when nothing changed", async () => {
    expect(await checkpoint(wt, "nothing")).toEqual({ sha: base, committed: false });
  });

  const binary = randomBytes(4096);
  let head: string;

  it("[RN3] checkpoints every kind of change, and the diff is git's own, appliable to the base", async () => {
    fs.writeFileSync(path.join(wt, "added.txt"), "new\nfile\n");
    fs.writeFileSync(path.join(wt, "edit.txt"), "one\n2\nthree\nfour\n");
    fs.rmSync(path.join(wt, "gone.txt"));
    fs.writeFileSync(path.join(wt, "blob.bin"), binary);
    fs.renameSync(path.join(wt, "old-name.txt"), path.join(wt, "new-name.txt"));

    const cp = await checkpoint(wt, "checkpoint 1");
    expect(cp.committed).toBe(true);
    head = cp.sha;
    expect(head).not.toBe(base);
    expect(text(wt, ["rev-parse", "HEAD"])).toBe(head);
    expect(text(wt, ["status", "--porcelain"])).toBe("");
    expect(text(wt, ["log", "-1", "--format=%an <%ae>|%s"])).toBe("Chips runner <runner@chips.invalid>|checkpoint 1");

    const diff = await diffBinary(wt, base, head);
    expect(Buffer.isBuffer(diff)).toBe(true);
    expect(diff.equals(sh(wt, ["diff", "--binary", `${base}..${head}`]))).toBe(true);

    // Applies onto a fresh checkout of the base and reproduces the head's tree exactly.
    const fresh = path.join(tmp, "fresh");
    execFileSync("git", ["clone", "-q", repo, fresh], { env });
    sh(fresh, ["checkout", "-q", base]);
    sh(fresh, ["apply", "--check"], diff);
    sh(fresh, ["apply", "--index"], diff);
    expect(fs.readFileSync(path.join(fresh, "blob.bin")).equals(binary)).toBe(true);
    sh(fresh, ["fetch", "-q", wt, "chips/run-1"]);
    expect(text(fresh, ["write-tree"])).toBe(text(fresh, ["rev-parse", `${head}^{tree}`]));
  });

  it("summarises the change-set per file", async () => {
    const s = await diffSummary(wt, base, head);
    const byPath = Object.fromEntries(s.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(["added.txt", "blob.bin", "edit.txt", "gone.txt", "new-name.txt"]);
    expect(byPath["added.txt"]).toEqual({
      path: "added.txt",
      status: "added",
      additions: 2,
      deletions: 0,
      binary: false,
    });
    expect(byPath["edit.txt"]).toEqual({
      path: "edit.txt",
      status: "modified",
      additions: 2,
      deletions: 1,
      binary: false,
    });
    expect(byPath["gone.txt"]).toEqual({
      path: "gone.txt",
      status: "deleted",
      additions: 0,
      deletions: 2,
      binary: false,
    });
    expect(byPath["blob.bin"]).toEqual({
      path: "blob.bin",
      status: "added",
      additions: null,
      deletions: null,
      binary: true,
    });
    expect(byPath["new-name.txt"]).toEqual({
      path: "new-name.txt",
      status: "renamed",
      additions: 0,
      deletions: 0,
      binary: false,
    });
    expect(s.additions).toBe(4);
    expect(s.deletions).toBe(3);
  });

  it("checkpoints again with nothing new: same sha, not committed", async () => {
    expect(await checkpoint(wt, "again")).toEqual({ sha: head, committed: false });
  });

  it("removes the worktree and keeps its branch", async () => {
    fs.writeFileSync(path.join(wt, "dirty.txt"), "uncommitted");
    await removeWorktree(repo, wt);
    expect(fs.existsSync(wt)).toBe(false);
    expect(text(repo, ["worktree", "list", "--porcelain"])).not.toContain(wt);
    expect(text(repo, ["rev-parse", "refs/heads/chips/run-1"])).toBe(head);
  });
});

describe("[RN10] worktrees of one repository made and removed at once", () => {
  it("[RN10] a runner's runs that start together each get their worktree, and removing them together works", async () => {
    // A runner with capacity for several runs makes their worktrees at the same moment. git reads
    // every entry under .git/worktrees while it adds or lists one, and an entry another add has
    // only half-written failed it ("failed to read .git/worktrees/<name>/commondir").
    for (let round = 0; round < 40; round++) {
      const names = Array.from({ length: 6 }, (_, i) => `together-${round}-${i}`);
      const made = await Promise.all(names.map((n) => createWorktree(repo, worktrees, n, base, `chips/${n}`)));
      expect(made).toEqual(names.map((n) => path.join(worktrees, n)));
      await Promise.all(made.map((wt) => removeWorktree(repo, wt)));
    }
    expect(text(repo, ["worktree", "list", "--porcelain"])).not.toContain("together-");
  }, 120_000);
});

/** Another process (a second runner) holding the repository's worktree lock until told to let go. */
function otherProcessHolds(lockFile: string) {
  const mod = JSON.stringify(path.resolve(import.meta.dirname, "../lib/core/node/pid-lock.ts"));
  const script = `import { takePidLock } from ${mod};
const lock = takePidLock(${JSON.stringify(lockFile)});
console.log("held");
process.stdin.once("data", () => { lock.release(); console.log("released"); process.exit(0); });`;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: path.resolve(import.meta.dirname, ".."),
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => out.includes(word) && resolve();
      child.stdout!.on("data", (d) => ((out += d), look()));
      child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before saying ${word}`)));
      look();
    });
  return {
    pid: child.pid!,
    held: said("held"),
    letGo: () => (child.stdin!.write("go\n"), said("released")),
    kill: () => new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGKILL"))),
  };
}

describe("[RN10] two runner processes on one repository", () => {
  it("[RN10] a worktree change waits while another process changes the repository's worktrees, and goes on once it is done", async () => {
    const other = otherProcessHolds(path.join(repo, ".git", WORKTREE_LOCK));
    await other.held;
    await expect(
      createWorktree(repo, worktrees, "while-held", base, "chips/while-held", { lockWaitMs: 300 }),
    ).rejects.toThrow(new RegExp(`another process \\(PID ${other.pid}\\) held this repository's worktree lock`));
    expect(fs.existsSync(path.join(worktrees, "while-held"))).toBe(false);
    // A linked worktree of the repository named as one (`--repo web=~/src/web-wt`) shares the lock.
    const linked = path.join(tmp, "linked");
    sh(repo, ["worktree", "add", "-q", "--detach", linked, base]);
    await expect(
      createWorktree(linked, worktrees, "via-linked", base, "chips/via-linked", { lockWaitMs: 300 }),
    ).rejects.toThrow(new RegExp(`PID ${other.pid}`));
    const waiting = createWorktree(repo, worktrees, "after-held", base, "chips/after-held");
    await other.letGo();
    expect(await waiting).toBe(path.join(worktrees, "after-held"));
    await removeWorktree(repo, await waiting);
    await removeWorktree(repo, linked);
  }, 30_000);

  it("[RN10] a lock left by a runner killed while holding it does not stop the next", async () => {
    const other = otherProcessHolds(path.join(repo, ".git", WORKTREE_LOCK));
    await other.held;
    await other.kill();
    expect(fs.existsSync(path.join(repo, ".git", WORKTREE_LOCK))).toBe(true);
    const wt = await createWorktree(repo, worktrees, "after-kill", base, "chips/after-kill");
    await removeWorktree(repo, wt);
    expect(fs.existsSync(path.join(repo, ".git", WORKTREE_LOCK))).toBe(false);
  }, 30_000);
});
