import fs from "node:fs";
import path from "node:path";
import { CliError, EXIT, UsageError } from "./errors";

const DEFAULT_URL = "http://localhost:3000";

export interface GlobalOptions {
  url?: string;
  token?: string;
  "data-dir"?: string;
}

type Env = Record<string, string | undefined>;

/** The server's base URL: --url, then CHIPS_URL, then http://localhost:3000 (no trailing slash). */
export function resolveUrl(opts: GlobalOptions, env: Env): string {
  const raw = opts.url || env.CHIPS_URL || DEFAULT_URL;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`"${raw}" is not a URL (expected e.g. ${DEFAULT_URL})`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new UsageError(`"${raw}" is not an http(s) URL`);
  return u.toString().replace(/\/+$/, "");
}

/** The server's data directory: --data-dir, then CHIPS_DATA_DIR, then ./.chips. */
function resolveDataDir(opts: GlobalOptions, env: Env): string {
  return path.resolve(opts["data-dir"] || env.CHIPS_DATA_DIR || ".chips");
}

function readSecret(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8").trim() || null;
  } catch {
    return null;
  }
}

/**
 * The admin token: from <dir>/admin-token when --data-dir is given; else CHIPS_ADMIN_TOKEN;
 * else <CHIPS_DATA_DIR or ./.chips>/admin-token.
 */
export function resolveAdminToken(opts: GlobalOptions, env: Env): string {
  if (!opts["data-dir"] && env.CHIPS_ADMIN_TOKEN) return env.CHIPS_ADMIN_TOKEN.trim();
  const file = path.join(resolveDataDir(opts, env), "admin-token");
  const token = readSecret(file);
  if (token) return token;
  throw new CliError(
    [
      `error: no admin token: ${file} is missing or empty`,
      `  start the server once (npm start) in this directory, pass --data-dir <the server's data dir>, or set CHIPS_ADMIN_TOKEN`,
    ],
    EXIT.usage,
  );
}

/**
 * A workspace credential (harness or person token): --token, then CHIPS_TOKEN, then the
 * default harness's token in <data dir>/harness-token.
 */
export function resolveToken(opts: GlobalOptions, env: Env): string {
  if (opts.token) return opts.token.trim();
  if (env.CHIPS_TOKEN) return env.CHIPS_TOKEN.trim();
  const file = path.join(resolveDataDir(opts, env), "harness-token");
  const token = readSecret(file);
  if (token) return token;
  throw new CliError(
    [
      "error: no token: pass --token <token> or set CHIPS_TOKEN",
      `  (${file} does not exist; "chips init" prints a token for a new workspace)`,
    ],
    EXIT.usage,
  );
}

/**
 * A person's token: --token, then CHIPS_TOKEN, then <data dir>/person-token (the default
 * workspace owner's, written by the server at its first start).
 */
export function resolvePersonToken(opts: GlobalOptions, env: Record<string, string | undefined>): string {
  if (opts.token) return opts.token.trim();
  if (env.CHIPS_TOKEN) return env.CHIPS_TOKEN.trim();
  const file = path.join(resolveDataDir(opts, env), "person-token");
  let token = "";
  try {
    token = fs.readFileSync(file, "utf8").trim();
  } catch {
    // reported below
  }
  if (token) return token;
  throw new CliError(
    [
      "error: no person token: pass --token <person token> or set CHIPS_TOKEN",
      `  (${file} does not exist; "chips init" prints a person token for a new workspace)`,
    ],
    EXIT.usage,
  );
}
