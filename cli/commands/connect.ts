import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { CliError, EXIT, UsageError } from "../errors";
import type { CommandContext } from "./context";
import { claudeSettingsFile, harnessAndRoom, type ConnectOptions } from "./connect-room";
import { chipsHome, connectionDir, privateDir, writeAtomic, type Connection } from "@/lib/agents/connect/home";

const PKG = path.resolve(import.meta.dirname, "../..");

function setsidPath(): string | null {
  for (const p of ["/usr/bin/setsid", "/bin/setsid"]) if (fs.existsSync(p)) return p;
  return null;
}

/** `chips connect claude|codex …` (and the internal `chips connect drain DIR`). */
export async function connect(ctx: CommandContext): Promise<void> {
  const [agent, ...rest] = ctx.args;
  if (agent === "drain") {
    const { runDrainer } = await import("@/lib/agents/connect/claude/drainer");
    if (!rest[0]) throw new UsageError("connect drain takes the connection directory");
    await runDrainer(path.resolve(rest[0]));
    return;
  }
  if (agent === "codex") return (await import("./connect-codex")).connectCodex(ctx);
  if (agent !== "claude") throw new UsageError(`connect takes claude or codex (got "${agent ?? ""}")`);
  if (rest.length) throw new UsageError(`connect claude takes options only (got "${rest[0]}")`);
  if ((ctx.opts as ConnectOptions).otel) return (await import("./connect-otel")).connectOtel(ctx);
  if ((ctx.opts as ConnectOptions).print) throw new UsageError("--print goes with --otel");
  const o = ctx.opts as ConnectOptions;
  const hold = Number(o["hold-seconds"] ?? 600);
  if (!Number.isInteger(hold) || hold < 1 || hold > 86_400)
    throw new UsageError("--hold-seconds is a whole number from 1 to 86400");
  const stale = Number(o["stale-seconds"] ?? 1800);
  if (!Number.isInteger(stale) || stale < 1 || stale > 86_400)
    throw new UsageError("--stale-seconds is a whole number from 1 to 86400");
  const { DEFAULT_ASK_SECONDS } = await import("@/lib/agents/connect/claude/settings");
  const askSeconds = Number(o["ask-seconds"] ?? DEFAULT_ASK_SECONDS);
  if (!Number.isInteger(askSeconds) || askSeconds < 1 || askSeconds > 3600)
    throw new UsageError("--ask-seconds is a whole number from 1 to 3600");
  const { url, token, me, space } = await harnessAndRoom(ctx);
  const settings = claudeSettingsFile(o, ctx.env);
  const root = privateDir(connectionDir(chipsHome(ctx.env), "claude", settings));
  for (const d of ["spool", "sessions", "state"]) privateDir(path.join(root, d));
  writeAtomic(path.join(root, "token"), token + "\n", 0o600);
  const conn: Connection = {
    agent: "claude",
    url,
    workspace_id: me.workspace_id,
    space_id: space.id,
    harness_id: me.id,
    project: process.cwd(),
    settings_file: settings,
    hold_seconds: hold,
    stale_seconds: stale,
    ask_seconds: askSeconds,
    created_at: new Date().toISOString(),
  };
  writeAtomic(path.join(root, "connection.json"), JSON.stringify(conn, null, 2) + "\n", 0o600);
  const { hookScript } = await import("@/lib/agents/connect/claude/hook-script");
  const script = path.join(root, "hook.sh");
  writeAtomic(
    script,
    hookScript({
      root,
      node: process.execPath,
      gate: path.join(PKG, "lib/agents/connect/claude/gate.mjs"),
      ask: path.join(PKG, "lib/agents/connect/claude/ask.mjs"),
      drainer: [path.join(PKG, "bin/chips.mjs"), "connect", "drain", root],
      setsid: setsidPath(),
    }),
    0o700,
  );
  try {
    execFileSync("/bin/sh", ["-n", script]); // never install a hook the shell cannot read
  } catch (e) {
    throw new CliError([`error: the hook script did not parse: ${(e as Error).message}`]);
  }
  const { installHooks } = await import("@/lib/agents/connect/claude/settings");
  try {
    installHooks(settings, path.join(root, "settings-backup.json"), script, hold, askSeconds);
  } catch (e) {
    throw new CliError([`error: ${(e as Error).message}`]);
  }
  ctx.io.out(
    [
      `Claude Code in ${path.dirname(path.dirname(settings))} now shows up in room "${space.name}" (${space.id}).`,
      `  hooks added to  ${settings} (the hooks already there are kept)`,
      `  token stored in ${path.join(root, "token")} (mode 0600, outside the repository)`,
      `  each prompt you type becomes a run; the room may pause, steer and cancel it`,
      `  permission prompts go to the room too; the first answer (room or terminal) wins, and after ${askSeconds} s`,
      `  without one, or with Chips unreachable, Claude Code decides as it always does`,
      `  undo:           chips disconnect claude${o.user ? " --user" : o.settings ? ` --settings ${o.settings}` : ""}`,
      "",
    ].join("\n"),
  );
}

/** `chips disconnect claude`: the settings back as they were; the token and queue go once nothing is left to send. */
export async function disconnect(ctx: CommandContext): Promise<void> {
  const [agent, ...rest] = ctx.args;
  if (agent === "codex") return (await import("./connect-codex")).connectCodex(ctx);
  if (agent !== "claude")
    throw new UsageError(`disconnect takes claude (got "${agent ?? ""}"); a Codex watcher stops with Ctrl-C`);
  if (rest.length) throw new UsageError(`disconnect claude takes options only (got "${rest[0]}")`);
  if ((ctx.opts as ConnectOptions).otel) return (await import("./connect-otel")).disconnectOtel(ctx);
  const settings = claudeSettingsFile(ctx.opts as ConnectOptions, ctx.env);
  const root = connectionDir(chipsHome(ctx.env), "claude", settings);
  if (!fs.existsSync(root))
    throw new CliError([`error: ${settings} is not connected (nothing in ${root})`], EXIT.failed);
  const { removeHooks } = await import("@/lib/agents/connect/claude/settings");
  const r = removeHooks(path.join(root, "settings-backup.json"), path.join(root, "hook.sh"));
  if (r.restored === "exact") ctx.io.out(`${r.file} is back exactly as it was before chips connect.\n`);
  else if (r.restored === "entries-only")
    ctx.io.out(`${r.file} was changed since chips connect: only Chips' hooks were taken out.\n`);
  const { pending } = await import("@/lib/agents/connect/spool");
  const { DurableStore } = await import("@/lib/agents/connect/outbox");
  const stateDir = path.join(root, "state");
  const store = fs.existsSync(stateDir)
    ? new DurableStore(stateDir, { workspaceId: "", actor: { kind: "harness", id: "" } })
    : null;
  const owed = store ? store.keys().reduce((n, k) => n + (store.load(k)?.outbox.length ?? 0), 0) : 0;
  const queued = pending(path.join(root, "spool")).length + owed;
  if (queued) {
    ctx.io.out(
      `${queued} event(s) are still on their way to Chips; the token stays in ${root} until they are sent (run this again later to remove it).\n`,
    );
    return;
  }
  // A drainer still idling there writes its pid and log into the directory: stop it and hold
  // its lock first, or removing the directory races with its writes (ENOTEMPTY).
  const release = await stopDrainer(root);
  try {
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  } finally {
    release();
  }
  ctx.io.out(`The token and queue in ${root} are removed.\n`);
}

/** Stop the connection's drainer (nothing is left for it to send) and hold its lock, so none starts. */
async function stopDrainer(root: string): Promise<() => void> {
  const { takeLock } = await import("@/lib/agents/connect/lock");
  const deadline = Date.now() + 10_000;
  for (;;) {
    const release = await takeLock(root);
    if (release) return release;
    if (Date.now() > deadline)
      throw new CliError([`error: the drainer of ${root} did not stop within 10 s`], EXIT.failed);
    try {
      const pid = Number(fs.readFileSync(path.join(root, "drainer.pid"), "utf8"));
      if (Number.isInteger(pid) && pid > 1) process.kill(pid, "SIGTERM");
    } catch {
      // no pid written yet, or the process is gone: the lock says when it is free
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
