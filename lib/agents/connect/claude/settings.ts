import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writeAtomic } from "../home";

/**
 * The Claude Code hook events Chips listens to. PermissionRequest fires where the terminal would
 * show its permission dialog (never under `-p`): the room is asked then ([CON3]); Notification
 * says the session waits for its person ([CON6]).
 */
export const HOOK_EVENTS = [
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "Notification",
  "Stop",
  "SessionEnd",
] as const;

/** How long a hook waits for the room's answer before Claude Code's own behaviour takes over (`--ask-seconds`). */
export const DEFAULT_ASK_SECONDS = 120;
export type HookEvent = (typeof HOOK_EVENTS)[number];

interface HookCommand {
  type: string;
  command?: string;
  timeout?: number;
  [k: string]: unknown;
}
interface MatcherGroup {
  matcher?: string;
  hooks?: HookCommand[];
  [k: string]: unknown;
}
type Settings = Record<string, unknown> & { hooks?: Record<string, MatcherGroup[]> };

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command line Claude Code runs for one event: the hook script with the event's name. */
export function hookCommand(script: string, event: HookEvent): string {
  return `/bin/sh ${shQuote(script)} ${event}`;
}

const isOurs = (script: string) => (h: HookCommand) =>
  typeof h.command === "string" && h.command.includes(shQuote(script));

function parse(text: string | null, file: string): Settings {
  if (text === null || !text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(
      `${file} is not valid JSON (${(e as Error).message}); fix it first — Chips never overwrites settings it cannot read`,
      { cause: e },
    );
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error(`${file} does not hold a JSON object`);
  const s = v as Settings;
  if (s.hooks !== undefined && (typeof s.hooks !== "object" || s.hooks === null || Array.isArray(s.hooks)))
    throw new Error(`${file}: "hooks" is not an object`);
  return s;
}

/** The settings without Chips' hooks (groups left empty by that are dropped; other hooks stay as they were). */
function without(s: Settings, script: string): Settings {
  if (!s.hooks) return s;
  const hooks: Record<string, MatcherGroup[]> = {};
  for (const [event, groups] of Object.entries(s.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept = groups
      .map((g) =>
        Array.isArray(g?.hooks) && g.hooks.some(isOurs(script))
          ? { ...g, hooks: g.hooks.filter((h) => !isOurs(script)(h)) }
          : g,
      )
      .filter((g) => !Array.isArray(g?.hooks) || g.hooks.length > 0);
    if (kept.length) hooks[event] = kept;
  }
  const { hooks: _old, ...rest } = s;
  return Object.keys(hooks).length ? { ...rest, hooks } : rest;
}

/**
 * The settings text with Chips' hooks added after whatever hooks are there (never
 * replacing one): one matcher group per event, running `script`. Connecting again
 * replaces only Chips' own entries.
 */
export function withChipsHooks(
  text: string | null,
  file: string,
  script: string,
  holdSeconds: number,
  askSeconds = DEFAULT_ASK_SECONDS,
): string {
  const s = without(parse(text, file), script);
  const hooks: Record<string, MatcherGroup[]> = { ...(s.hooks ?? {}) };
  for (const event of HOOK_EVENTS) {
    // A pause holds PreToolUse up to holdSeconds, an ask (`-p`) up to askSeconds, a PermissionRequest
    // waits up to askSeconds; each hook gives up by itself a little before Claude Code would kill it.
    const timeout =
      event === "PreToolUse"
        ? Math.max(holdSeconds, askSeconds) + 30
        : event === "PermissionRequest"
          ? askSeconds + 30
          : 30;
    const group: MatcherGroup = {
      ...(event.includes("ToolUse") || event === "PermissionRequest" ? { matcher: "*" } : {}),
      hooks: [{ type: "command", command: hookCommand(script, event), timeout }],
    };
    hooks[event] = [...(Array.isArray(hooks[event]) ? hooks[event] : []), group];
  }
  return JSON.stringify({ ...s, hooks }, null, 2) + "\n";
}

const sha = (b: Buffer | string) => crypto.createHash("sha256").update(b).digest("hex");

function readOrNull(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/** What connect remembers to undo itself byte for byte (settings-backup.json in the connection dir). */
interface Backup {
  file: string;
  /** The file's bytes before the first connect (base64), or null: there was no file. */
  before: string | null;
  /** Directories connect created for the file (removed again when left empty). */
  made_dirs: string[];
  /** sha256 of what connect wrote: disconnect restores `before` only while the file is still exactly that. */
  after_sha256: string;
}

/** One edit of a settings file: what connect adds, and how to take only that out again. */
interface Edit {
  add(text: string | null): string;
  /** The settings less the edit's entries (whatever else is there stays). */
  strip(text: string): string;
}

const hooksEdit = (file: string, script: string, holdSeconds: number, askSeconds: number): Edit => ({
  add: (text) => withChipsHooks(text, file, script, holdSeconds, askSeconds),
  strip: (text) => JSON.stringify(without(parse(text, file), script), null, 2) + "\n",
});

/**
 * The environment variables `env` set in the settings' `env` (`chips connect claude --otel`),
 * replacing only those names; taken out again by name.
 */
const envEdit = (file: string, env: Record<string, string>): Edit => {
  const envOf = (s: Settings): Record<string, unknown> => {
    const e = s.env;
    if (e === undefined) return {};
    if (!e || typeof e !== "object" || Array.isArray(e)) throw new Error(`${file}: "env" is not an object`);
    return e as Record<string, unknown>;
  };
  return {
    add: (text) => {
      const s = parse(text, file);
      return JSON.stringify({ ...s, env: { ...envOf(s), ...env } }, null, 2) + "\n";
    },
    strip: (text) => {
      const s = parse(text, file);
      const rest = Object.fromEntries(Object.entries(envOf(s)).filter(([k]) => !(k in env)));
      const { env: _old, ...others } = s;
      return JSON.stringify(Object.keys(rest).length ? { ...others, env: rest } : others, null, 2) + "\n";
    },
  };
};

/** Install the hooks into `file`, remembering the original bytes in `backupFile` (kept from the first connect). */
export function installHooks(
  file: string,
  backupFile: string,
  script: string,
  holdSeconds: number,
  askSeconds = DEFAULT_ASK_SECONDS,
): void {
  install(file, backupFile, hooksEdit(file, script, holdSeconds, askSeconds));
}

/** Put `env` into the settings' `env` of `file`, remembering the original bytes in `backupFile`. */
export function installEnv(file: string, backupFile: string, env: Record<string, string>): void {
  install(file, backupFile, envEdit(file, env));
}

function install(file: string, backupFile: string, edit: Edit): void {
  const current = readOrNull(file);
  const old = readOrNull(backupFile);
  const prior: Backup | null = old ? (JSON.parse(old.toString("utf8")) as Backup) : null;
  const next = edit.add(current?.toString("utf8") ?? null);
  const madeDirs: string[] = [];
  for (let d = path.dirname(file); !fs.existsSync(d); d = path.dirname(d)) madeDirs.push(d);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const keepBefore = prior && prior.file === file && current !== null && sha(current) === prior.after_sha256;
  // Connected before and edited since: the "before" is today's file less Chips' old entries.
  const stale = prior && !keepBefore && current !== null ? Buffer.from(edit.strip(current.toString("utf8"))) : null;
  const backup: Backup = {
    file,
    before: keepBefore ? prior.before : ((stale ?? current)?.toString("base64") ?? null),
    made_dirs: keepBefore ? prior.made_dirs : madeDirs,
    after_sha256: sha(next),
  };
  writeAtomic(backupFile, JSON.stringify(backup));
  writeAtomic(file, next, current ? fs.statSync(file).mode & 0o777 : 0o644);
}

type Removed = { file: string; restored: "exact" | "entries-only" | "nothing" };

/**
 * Take the hooks out again. When the file is still exactly what connect wrote, the
 * original comes back byte for byte (or goes, if there was none); when someone changed it
 * since, only Chips' entries are removed and the answer says so.
 */
export function removeHooks(backupFile: string, script: string): Removed {
  return remove(backupFile, (file) => hooksEdit(file, script, 0, 0));
}

/** Take `env`'s variables out again, as removeHooks does the hooks. */
export function removeEnv(backupFile: string, env: Record<string, string>): Removed {
  return remove(backupFile, (file) => envEdit(file, env));
}

function remove(backupFile: string, editOf: (file: string) => Edit): Removed {
  const raw = readOrNull(backupFile);
  if (!raw) return { file: "", restored: "nothing" };
  const b = JSON.parse(raw.toString("utf8")) as Backup;
  const current = readOrNull(b.file);
  if (current !== null && sha(current) === b.after_sha256) {
    if (b.before === null) {
      fs.unlinkSync(b.file);
      for (const d of b.made_dirs) {
        try {
          fs.rmdirSync(d); // only when empty: anything else put there stays
        } catch {
          break;
        }
      }
    } else {
      writeAtomic(b.file, Buffer.from(b.before, "base64"), fs.statSync(b.file).mode & 0o777);
    }
    fs.unlinkSync(backupFile);
    return { file: b.file, restored: "exact" };
  }
  if (current !== null)
    writeAtomic(b.file, editOf(b.file).strip(current.toString("utf8")), fs.statSync(b.file).mode & 0o777);
  fs.unlinkSync(backupFile);
  return { file: b.file, restored: "entries-only" };
}
