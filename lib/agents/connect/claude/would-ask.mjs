// @ts-check
/**
 * Under `claude -p` ([CON5]) no permission dialog ever shows and PermissionRequest never
 * fires: a call that needs a permission is simply refused. The PreToolUse hook fires for every
 * call without saying which. So this decides, from what Claude Code itself reads, whether the
 * call would be refused for want of a permission — only those are asked in the room:
 *
 *   - the permission mode (`bypassPermissions` runs everything; `acceptEdits` runs edits);
 *   - the allow and deny rules of the settings (user, project, local, managed) and of the
 *     command line that started this `claude` (`--allowedTools`, `--disallowedTools`);
 *   - Bash commands that only read (a small list, one plain command): Claude Code runs those.
 *
 * It errs towards asking: a call asked about that Claude Code would have run still runs when
 * nobody answers (the hook steps aside). AskUserQuestion is always asked: `-p` has no one to
 * answer it. Plain JavaScript without dependencies, like the gate.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const EDITS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);
const READS = new Set([
  "ls",
  "pwd",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "rg",
  "which",
  "echo",
  "true",
  "date",
  "stat",
  "file",
]);
const GIT_READS = new Set(["status", "diff", "log", "show", "branch", "rev-parse"]);

/** @param {string} file @returns {{allow: string[], deny: string[]}} */
function rulesIn(file) {
  try {
    const p = JSON.parse(fs.readFileSync(file, "utf8"))?.permissions ?? {};
    const list = (/** @type {unknown} */ v) => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);
    return { allow: list(p.allow), deny: list(p.deny) };
  } catch {
    return { allow: [], deny: [] };
  }
}

/** The values of `--allowedTools`/`--disallowedTools` (either spelling, comma or space separated) on a command line. */
function flagRules(/** @type {string[]} */ argv, /** @type {string[]} */ names) {
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    if (!names.includes(flag)) continue;
    const values = inline !== undefined ? [inline] : [];
    while (inline === undefined && argv[i + 1] !== undefined && !argv[i + 1].startsWith("-")) values.push(argv[++i]);
    for (const v of values) out.push(...(v.match(/[^\s,(]+(\([^)]*\))?/g) ?? []));
  }
  return out;
}

/** @param {number} pid */
function argvOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/** Does `rule` (`Bash`, `Bash(npm test:*)`, `Bash(git *)`, `Edit`…) cover this call? Path rules are not read: asked. */
function covers(/** @type {string} */ rule, /** @type {string} */ tool, /** @type {Record<string, unknown>} */ input) {
  const m = /^([^(]+)(?:\((.*)\))?$/s.exec(rule.trim());
  if (!m || m[1] !== tool) return false;
  const pattern = m[2];
  if (pattern === undefined || pattern === "*" || pattern === "") return true;
  if (tool !== "Bash") return false;
  const cmd = String(input.command ?? "").trim();
  if (pattern.endsWith(":*")) return cmd === pattern.slice(0, -2) || cmd.startsWith(pattern.slice(0, -2) + " ");
  if (!pattern.includes("*")) return cmd === pattern;
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  );
  return re.test(cmd);
}

/** One plain command that only reads (no pipes, lists, redirections or substitutions). */
function readsOnly(/** @type {string} */ cmd) {
  if (/[;&|<>`$\n]/.test(cmd)) return false;
  const words = cmd.trim().split(/\s+/);
  if (words[0] === "git") return GIT_READS.has(words[1] ?? "");
  if (words[0] === "find") return !words.some((w) => /^-(exec|execdir|delete|ok|fprint)/.test(w));
  return READS.has(words[0] ?? "");
}

/**
 * @param {Record<string, any>} input the PreToolUse hook's input
 * @param {number} claudePid the `claude` process (its command line holds `--allowedTools`)
 */
export function wouldAsk(input, claudePid) {
  const tool = String(input.tool_name ?? "");
  const mode = String(input.permission_mode ?? "default");
  if (tool === "AskUserQuestion") return true;
  if (mode === "bypassPermissions") return false;
  if (mode === "acceptEdits" && EDITS.has(tool)) return false;
  const cwd = String(input.cwd ?? process.env.CLAUDE_PROJECT_DIR ?? process.cwd());
  const config = process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), ".claude");
  const files = [
    path.join(config, "settings.json"),
    path.join(cwd, ".claude", "settings.json"),
    path.join(cwd, ".claude", "settings.local.json"),
    "/etc/claude-code/managed-settings.json",
  ];
  const argv = argvOf(claudePid);
  const allow = [...files.flatMap((f) => rulesIn(f).allow), ...flagRules(argv, ["--allowedTools", "--allowed-tools"])];
  const deny = [
    ...files.flatMap((f) => rulesIn(f).deny),
    ...flagRules(argv, ["--disallowedTools", "--disallowed-tools"]),
  ];
  const input_ = input.tool_input ?? {};
  if (deny.some((r) => covers(r, tool, input_))) return false; // refused whatever anyone says
  if (allow.some((r) => covers(r, tool, input_))) return false;
  if (tool === "Bash" && readsOnly(String(input_.command ?? ""))) return false;
  return true;
}
