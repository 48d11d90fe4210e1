/**
 * Git for the runner: a worktree per run, checkpoint commits made outside the agent's
 * sandbox, and the evidence of a run (the binary diff and its per-file summary).
 *
 * git runs through `git-exec.ts` (never a shell); names that start with `-` are refused
 * anyway: git would read them as options.
 */
import fs from "node:fs";
import path from "node:path";
import type { ChangedFile } from "@/lib/core/protocol/runner-contract";
import { execFileP, git, gitEnv, gitExit, MAX_BUFFER, toGitError } from "./git-exec";
import { oneAtATime } from "./worktree-lock";

function refuseOption(what: string, value: string): void {
  if (!value || value.startsWith("-"))
    throw new Error(`${what} must not be empty or start with "-": ${JSON.stringify(value)}`);
}

/** The full SHA of a commit-ish, or null if it does not name a commit. */
async function commitOf(repoDir: string, rev: string): Promise<string | null> {
  try {
    return (await git(repoDir, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`])).trim() || null;
  } catch {
    return null;
  }
}

/**
 * The full SHA a run starts from: `refs/heads/<branch>`, else `refs/remotes/origin/<branch>`,
 * else `branch` as a raw (possibly abbreviated) SHA. If the repository has a remote `origin`
 * it is fetched first so the remote-tracking ref is fresh; a failed fetch (offline) is
 * tolerated and the local refs are used — a run on a slightly stale base beats no run.
 */
export async function resolveBase(repoDir: string, branch: string): Promise<string> {
  refuseOption("branch", branch);
  const remotes = (await git(repoDir, ["remote"])).split("\n").map((s) => s.trim());
  if (remotes.includes("origin")) await git(repoDir, ["fetch", "--quiet", "origin", branch]).catch(() => {});
  for (const ref of [`refs/heads/${branch}`, `refs/remotes/origin/${branch}`]) {
    const sha = await commitOf(repoDir, ref);
    if (sha) return sha;
  }
  // Only a hex string may be taken as a raw SHA: anything else (a tag, `HEAD~3`) is not a branch.
  if (/^[0-9a-f]{4,64}$/i.test(branch)) {
    const sha = await commitOf(repoDir, branch);
    if (sha) return sha;
  }
  throw new Error(`no branch or commit ${JSON.stringify(branch)} in ${repoDir}`);
}

/** The paths `git worktree list --porcelain` knows (including stale ones not yet pruned). */
async function worktreePaths(repoDir: string): Promise<string[]> {
  const out = await git(repoDir, ["worktree", "list", "--porcelain", "-z"]);
  return out
    .split("\0")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length));
}

function worktreeExists(message: string): Error {
  return Object.assign(new Error(message), { code: "worktree_exists" });
}

/**
 * Creates `<worktreesDir>/<name>` on a new branch `branch` at `baseSha` and returns its
 * absolute path. Never reuses anything: if the directory exists, git already lists a
 * worktree at that path, or the branch exists, it throws an Error with
 * `code === "worktree_exists"` and changes nothing — a run must not inherit another run's
 * files or commits.
 */
export async function createWorktree(
  repoDir: string,
  worktreesDir: string,
  name: string,
  baseSha: string,
  branch: string,
  opts: { lockWaitMs?: number } = {},
): Promise<string> {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(name) || name === "." || name === "..")
    throw new Error(`bad worktree name ${JSON.stringify(name)}`);
  refuseOption("branch", branch);
  refuseOption("base", baseSha);
  await git(repoDir, ["check-ref-format", "--branch", branch]);
  const wt = path.resolve(worktreesDir, name);
  if (fs.existsSync(wt)) throw worktreeExists(`worktree path exists: ${wt}`);
  // git records real paths; compare against both spellings (worktreesDir may sit behind a symlink).
  fs.mkdirSync(worktreesDir, { recursive: true });
  const real = path.join(fs.realpathSync(worktreesDir), name);
  return oneAtATime(
    repoDir,
    async () => {
      const known = await worktreePaths(repoDir);
      if (known.includes(wt) || known.includes(real)) throw worktreeExists(`git already has a worktree at ${wt}`);
      if ((await gitExit(repoDir, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`])) === 0) {
        throw worktreeExists(`branch exists: ${branch}`);
      }
      await git(repoDir, ["worktree", "add", "--quiet", "-b", branch, wt, baseSha]);
      return wt;
    },
    opts.lockWaitMs,
  );
}

/**
 * Commits everything in the worktree (`git add -A`) if anything changed, and returns HEAD.
 * The identity is fixed and hooks and signing are off: the commit is the runner's record of
 * what the agent did, not the person's commit, and must not depend on their git config.
 */
export async function checkpoint(worktree: string, message: string): Promise<{ sha: string; committed: boolean }> {
  await git(worktree, ["add", "-A"]);
  const staged = (await gitExit(worktree, ["diff", "--cached", "--quiet"])) === 1;
  if (staged) {
    await git(worktree, [
      "-c",
      "user.name=Chips runner",
      "-c",
      "user.email=runner@chips.invalid",
      "-c",
      "commit.gpgsign=false",
      // --no-verify skips pre-commit/commit-msg only; an empty hooks path skips the rest (post-commit…).
      "-c",
      "core.hooksPath=/dev/null",
      "commit",
      "--quiet",
      "--no-verify",
      "-m",
      message,
    ]);
  }
  const sha = (await git(worktree, ["rev-parse", "HEAD"])).trim();
  return { sha, committed: staged };
}

/**
 * The bytes of `git diff --binary <base>..<head>` — the change-set object, appliable with
 * `git apply`. The extra flags equal git's defaults; they pin them against a person's
 * config (color, external diff drivers, textconv, `diff.noprefix`) that would make the
 * patch unappliable.
 */
export async function diffBinary(worktree: string, baseSha: string, headSha: string): Promise<Buffer> {
  refuseOption("base", baseSha);
  refuseOption("head", headSha);
  try {
    const { stdout } = await execFileP(
      "git",
      [
        "diff",
        "--binary",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        `${baseSha}..${headSha}`,
      ],
      { cwd: worktree, env: gitEnv(), maxBuffer: MAX_BUFFER, encoding: "buffer" },
    );
    return stdout;
  } catch (e) {
    throw toGitError(["diff"], e);
  }
}

const STATUS: Record<string, ChangedFile["status"]> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  T: "modified",
  C: "added",
};

/**
 * The change-set's file list and line totals, from `--numstat -z` and `--name-status -z`
 * (NUL-separated, so any file name parses). Binary files count as `-\t-` in numstat: their
 * additions/deletions are null and `binary` is true. A rename is listed under its new path.
 */
export async function diffSummary(
  worktree: string,
  baseSha: string,
  headSha: string,
): Promise<{ files: ChangedFile[]; additions: number; deletions: number }> {
  refuseOption("base", baseSha);
  refuseOption("head", headSha);
  const range = `${baseSha}..${headSha}`;
  // -M on both: rename detection must agree between the two listings whatever diff.renames says.
  const [numstat, nameStatus] = await Promise.all([
    git(worktree, ["diff", "--numstat", "-z", "-M", "--no-ext-diff", "--no-textconv", range]),
    git(worktree, ["diff", "--name-status", "-z", "-M", "--no-ext-diff", range]),
  ]);

  // numstat -z: "<add>\t<del>\t<path>\0", or for a rename "<add>\t<del>\t\0<old>\0<new>\0".
  const counts = new Map<string, { additions: number | null; deletions: number | null }>();
  const n = numstat.split("\0");
  for (let i = 0; i < n.length; i++) {
    const rec = n[i];
    if (!rec) continue;
    const [a, d, p] = rec.split("\t", 3) as [string, string, string | undefined];
    let file = p ?? "";
    if (file === "") {
      i += 2; // rename: old path, then new path
      file = n[i] ?? "";
    }
    counts.set(file, { additions: a === "-" ? null : Number(a), deletions: d === "-" ? null : Number(d) });
  }

  // name-status -z: "<S>\0<path>\0", or for renames/copies "<Rnnn>\0<old>\0<new>\0".
  const files: ChangedFile[] = [];
  const s = nameStatus.split("\0");
  for (let i = 0; i < s.length; i++) {
    const code = s[i];
    if (!code) continue;
    const letter = code[0]!;
    let file = s[++i] ?? "";
    if (letter === "R" || letter === "C") file = s[++i] ?? "";
    const c = counts.get(file) ?? { additions: null, deletions: null };
    files.push({
      path: file,
      status: STATUS[letter] ?? "modified",
      additions: c.additions,
      deletions: c.deletions,
      binary: c.additions === null && c.deletions === null,
    });
  }
  return {
    files,
    additions: files.reduce((t, f) => t + (f.additions ?? 0), 0),
    deletions: files.reduce((t, f) => t + (f.deletions ?? 0), 0),
  };
}

/** Removes a run's worktree (the "remove" cleanup policy); its branch and commits stay. */
export async function removeWorktree(repoDir: string, worktreePath: string): Promise<void> {
  await oneAtATime(repoDir, () => git(repoDir, ["worktree", "remove", "--force", worktreePath]));
}
