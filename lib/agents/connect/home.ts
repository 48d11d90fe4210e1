import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

type Env = Record<string, string | undefined>;

/**
 * Where `chips connect` keeps what must stay outside the repository: the harness token
 * (mode 0600), the hook script, the on-disk queue and the drainer's state. `CHIPS_HOME`,
 * else `$XDG_CONFIG_HOME/chips`, else `~/.config/chips`.
 */
export function chipsHome(env: Env = process.env): string {
  if (env.CHIPS_HOME) return path.resolve(env.CHIPS_HOME);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "chips");
}

/** One connection's directory: per agent and per project (or the user's settings), named by a hash of its path. */
export function connectionDir(home: string, agent: "claude" | "codex", target: string): string {
  const id = crypto.createHash("sha256").update(path.resolve(target)).digest("hex").slice(0, 16);
  return path.join(home, agent, id);
}

/** A directory only its owner may enter. */
export function privateDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  return dir;
}

/** Write a file whole or not at all (temp file, fsync, rename), with `mode`. */
export function writeAtomic(file: string, data: string | Buffer, mode = 0o600): void {
  const tmp = `${file}.tmp-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
  const fd = fs.openSync(tmp, "w", mode);
  try {
    fs.writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** What `chips connect` recorded about one connection (connection.json; the token is beside it, never in it). */
export interface Connection {
  agent: "claude" | "codex";
  url: string;
  workspace_id: string;
  space_id: string;
  harness_id: string;
  /** The project directory (Codex: whose sessions are mirrored; Claude: where its settings are). */
  project: string;
  /** Claude: the settings file the hooks went into. */
  settings_file?: string;
  /** Claude: how long a pause holds one tool call before the hook denies it, seconds. */
  hold_seconds?: number;
  /** Claude: how long the drainer stays without a hook call, or without reaching Chips, seconds ([CON2]). */
  stale_seconds?: number;
  /** Claude: how long a hook waits for the room's answer to an ask before Claude Code's own behaviour takes over, seconds. */
  ask_seconds?: number;
  created_at: string;
}

export function readConnection(dir: string): Connection | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, "connection.json"), "utf8")) as Connection;
  } catch {
    return null;
  }
}

export function readToken(dir: string): string {
  return fs.readFileSync(path.join(dir, "token"), "utf8").trim();
}
