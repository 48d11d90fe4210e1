/**
 * The runner's own sandbox for an agent CLI that cannot be trusted to sandbox itself (as
 * root, Claude Code refuses to skip its permission prompts and runs its tools unsandboxed):
 * bubblewrap (`bwrap`, Debian's `bubblewrap`) around the whole CLI, built by the runner.
 *
 * Inside: the whole filesystem read-only, a fresh /dev and /proc, a private tmpfs /tmp
 * (TMPDIR=/tmp), the worktree writable (`workspace-write`) or read-only (`read-only`), the
 * CLI's own config directory writable, the repository's git directories readable (the
 * runner checkpoints outside). Own PID namespace (host processes are not visible, so
 * `/proc/<pid>/root` cannot lead out), no capabilities, own IPC namespace, and an own
 * network namespace holding only loopback: the one endpoint brought in is the model's,
 * through sandbox-relay.mjs (outside: a unix socket in the job's `net/` dir → the model's
 * host:port; inside: 127.0.0.1:<port> → that socket). A hostname endpoint is mapped to
 * 127.0.0.1 by the sandbox's /etc/hosts, so TLS to it still names the real host.
 *
 * Process control: no `--new-session` and no `--die-with-parent`. bwrap itself dies at
 * once on SIGINT, and `--die-with-parent` would then SIGKILL the CLI before it could save
 * its session; without it the CLI gets the group's SIGINT like every other member (there
 * is no terminal to protect: the runner starts jobs with setsid and stdin closed). Every
 * process inside keeps CHIPS_JOB, so stopGroup and the CHIPS_JOB sweep
 * (lib/agents/runner/process.ts) reach all of them. `--as-pid-1`: the inside relay is the PID
 * namespace's init, not a bwrap reaper — bwrap's reaper ignores SIGINT and SIGTERM from
 * outside and lives as long as any orphan does, whereas when the relay exits (right after
 * the CLI) the kernel kills whatever is left inside, including tool processes that the CLI
 * started in process groups of their own.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { PermissionProfile } from "@/lib/core/protocol/runner-contract";
import { clipUtf8 } from "@/lib/core/protocol/clip";
import type { LaunchSpec } from "./adapter";

const run = promisify(execFile);

export const DEFAULT_BWRAP = "/usr/bin/bwrap";
const RELAY = path.join(import.meta.dirname, "sandbox-relay.mjs");

/** The namespaces and limits every sandbox gets (also what the probe tries). */
const ISOLATION = [
  "--unshare-pid",
  "--as-pid-1",
  "--unshare-net",
  "--unshare-ipc",
  "--cap-drop",
  "ALL",
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
];

/**
 * Whether bubblewrap at `bwrap` can build this sandbox here: null when it can, else why
 * not. Runs it once with the same namespaces (a missing binary, a kernel or container that
 * refuses user or network namespaces, a seccomp profile that forbids mounts all fail here).
 */
export async function probeSandbox(bwrap: string): Promise<string | null> {
  if (!fs.existsSync(bwrap)) return `bubblewrap not found at ${bwrap}`;
  try {
    await run(bwrap, [...ISOLATION, "--", "/bin/true"], { timeout: 20_000 });
    return null;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    return `bubblewrap at ${bwrap} cannot build the sandbox: ${clipUtf8((err.stderr || err.message).trim(), 300)}`;
  }
}

export interface SandboxSpec {
  bwrap: string;
  profile: PermissionProfile;
  worktree: string;
  /** Directories the CLI writes besides the worktree (its config dir). */
  writable: string[];
  /** Paths it must read even if they lie under /tmp (git dirs, the CLI, node, the relay). */
  readable: string[];
  /** The model endpoint, the only address reachable from inside: `http(s)://host[:port][/path]`. */
  endpoint: string;
  /** A directory of the job's, outside the worktree: the relay's socket and the hosts file. */
  netDir: string;
}

/** An endpoint URL → where the relay connects outside, and the URL the CLI uses inside. */
export function endpointOf(url: string): { host: string; port: number; inside: string; hostname: string | null } {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host)) {
    // An address: inside, the same port on loopback (the namespace has nothing else).
    const inside = new URL(url);
    inside.hostname = "127.0.0.1";
    inside.port = String(port);
    return { host, port, inside: inside.toString().replace(/\/$/, ""), hostname: null };
  }
  return { host, port, inside: url.replace(/\/$/, ""), hostname: host };
}

const relayAddr = (host: string, port: number) => `tcp:${net.isIPv6(host) ? `[${host}]` : host}:${port}`;

/**
 * `inner` (the CLI with its args and env) wrapped in the sandbox: the outside relay, bwrap
 * with the binds for `s.profile`, the inside relay, then the CLI. `inner.env` must point the
 * CLI at {@link endpointOf}`(endpoint).inside`.
 */
export function sandboxed(inner: LaunchSpec, s: SandboxSpec): LaunchSpec {
  const ep = endpointOf(s.endpoint);
  fs.mkdirSync(s.netDir, { recursive: true, mode: 0o700 });
  // A unix socket path has at most 107 bytes: a deep job dir gets a short one of its own.
  const sockDir =
    Buffer.byteLength(path.join(s.netDir, "model.sock")) > 100
      ? fs.mkdtempSync(path.join(os.tmpdir(), "chips-net-"))
      : s.netDir;
  const sock = path.join(sockDir, "model.sock");
  const binds: string[] = [];
  for (const p of new Set([...s.readable, RELAY, process.execPath])) {
    if (fs.existsSync(p)) binds.push("--ro-bind", p, p);
  }
  if (ep.hostname) {
    const hosts = path.join(s.netDir, "hosts");
    // IPv4 only: the inside relay listens on 127.0.0.1, so no name may lead to ::1.
    fs.writeFileSync(hosts, `127.0.0.1 localhost ${ep.hostname}\n`, { mode: 0o644 });
    binds.push("--ro-bind", hosts, "/etc/hosts");
  }
  binds.push("--ro-bind", sockDir, sockDir);
  for (const p of s.writable) binds.push("--bind", p, p);
  // `ask` has workspace-write's sandbox: a person's answer decides a call, never what it may reach ([RN7]).
  binds.push(s.profile === "read-only" ? "--ro-bind" : "--bind", s.worktree, s.worktree);
  return {
    cmd: process.execPath,
    args: [
      RELAY,
      `unix:${sock}`,
      relayAddr(ep.host, ep.port),
      "--",
      s.bwrap,
      ...ISOLATION,
      ...binds,
      "--setenv",
      "TMPDIR",
      "/tmp",
      "--chdir",
      s.worktree,
      "--",
      process.execPath,
      RELAY,
      `tcp:127.0.0.1:${ep.port}`,
      `unix:${sock}`,
      "--",
      inner.cmd,
      ...inner.args,
    ],
    env: { ...inner.env, TMPDIR: "/tmp" },
    // stdin crosses both relays and bwrap untouched: the CLI's own input channel.
    ...(inner.stdin ? { stdin: inner.stdin } : {}),
  };
}

/**
 * The git directories a worktree needs to be read as a repository (`git status`): its own
 * `.git/worktrees/<name>` and the common `.git`. Read from the worktree's `.git` file.
 */
export function gitDirsOf(worktree: string): string[] {
  try {
    const dotGit = path.join(worktree, ".git");
    if (fs.statSync(dotGit).isDirectory()) return [dotGit];
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, "utf8"));
    if (!m) return [];
    const own = path.resolve(worktree, m[1].trim());
    let common = own;
    try {
      common = path.resolve(own, fs.readFileSync(path.join(own, "commondir"), "utf8").trim());
    } catch {
      // no commondir: a plain gitdir
    }
    return [...new Set([common, own])];
  } catch {
    return [];
  }
}
