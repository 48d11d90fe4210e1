import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { run as runCli } from "../../cli/main";
import { chipsHome, connectionDir } from "../../lib/agents/connect/home";
import { readEvents, type Workspace } from "./api";
import { until } from "./feed";

export interface Connected {
  /** The project directory (its `.claude/settings.local.json` holds the hooks). */
  project: string;
  settings: string;
  /** The connection's directory (token, hook.sh, spool, state). */
  root: string;
  env: Record<string, string>;
  out: string;
  close(): Promise<void>;
}

/** `chips connect claude` for a fresh project, with CHIPS_HOME in a temp dir; `close` disconnects and stops its drainer. */
export async function connectClaude(
  url: string,
  ws: Workspace,
  extra: string[] = [],
  settingsBody?: string,
): Promise<Connected> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "chips-connect-"));
  const project = path.join(base, "project");
  fs.mkdirSync(path.join(project, ".claude"), { recursive: true });
  const settings = path.join(project, ".claude", "settings.local.json");
  if (settingsBody !== undefined) fs.writeFileSync(settings, settingsBody);
  const env = { CHIPS_HOME: path.join(base, "home"), CHIPS_URL: url, CHIPS_TOKEN: ws.token };
  let out = "";
  const io = { out: (s: string) => void (out += s), err: (s: string) => void (out += s) };
  const code = await runCli(["connect", "claude", "--settings", settings, ...extra], { env, io });
  if (code !== 0) throw new Error(`chips connect claude failed (${code}): ${out}`);
  const root = connectionDir(chipsHome(env), "claude", settings);
  return {
    project,
    settings,
    root,
    env,
    out,
    async close() {
      let pid = 0;
      try {
        pid = Number(fs.readFileSync(path.join(root, "drainer.pid"), "utf8").trim() || 0);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // no drainer running
      }
      if (pid) {
        try {
          process.kill(pid, "SIGTERM");
        } catch {
          // gone already
        }
      }
      fs.rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** What one hook call answered. */
export interface HookAnswer {
  code: number | null;
  stdout: string;
  json: any;
}

/**
 * Call the installed hook as Claude Code does: `/bin/sh hook.sh EVENT` with the event's JSON on
 * stdin (`env` adds to the environment: `CLAUDE_CODE_ENTRYPOINT=sdk-cli` is what `claude -p` sets).
 */
export function callHook(
  c: Connected,
  event: string,
  input: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<HookAnswer> {
  const proc = spawn("/bin/sh", [path.join(c.root, "hook.sh"), event], {
    cwd: c.project,
    // Which Claude Code calls is the test's to say: never whatever ran this test.
    env: { ...process.env, CLAUDE_CODE_ENTRYPOINT: "cli", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  proc.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  // session_id first, as Claude Code writes it
  proc.stdin.end(JSON.stringify({ session_id: input.session_id, ...input, hook_event_name: event }));
  return new Promise((resolve, reject) => {
    proc.once("error", reject);
    proc.once("close", (code) => resolve({ code, stdout, json: stdout.trim() ? JSON.parse(stdout) : null }));
  });
}

/** The workspace's events of one run, by type. */
export async function runEvents(url: string, ws: Workspace, runId: string, type?: string) {
  const all = await readEvents({ url }, ws);
  return all.filter((e: any) => e.run_id === runId && (!type || e.type === type));
}

/** The newest run the harness started (the one a prompt just made). */
/**
 * The run a typed prompt became. It waits as long as a model turn may take (the turn's own
 * waits are 120 s): a real CLI on a loaded machine took over 30 s to first write its session log.
 */
export async function waitForRun(url: string, ws: Workspace, goal: string, ms = 90_000): Promise<string> {
  let id = "";
  await until(
    async () => {
      const started = (await readEvents({ url }, ws)).filter((e: any) => e.type === "run.started" && e.goal === goal);
      id = started.at(-1)?.run_id ?? "";
      return !!id;
    },
    `a run for "${goal}"`,
    ms,
  );
  return id;
}
