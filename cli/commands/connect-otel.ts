import fs from "node:fs";
import path from "node:path";
import { CliError } from "../errors";
import type { CommandContext } from "./context";
import { claudeSettingsFile, harnessAndRoom, type ConnectOptions } from "./connect-room";
import { asShell, claudeOtelEnv } from "@/lib/agents/connect/claude/otel-env";
import { installEnv, removeEnv } from "@/lib/agents/connect/claude/settings";
import { chipsHome, connectionDir, privateDir } from "@/lib/agents/connect/home";

/** Every variable the env block sets (its names: what disconnect takes out). */
const NAMES = claudeOtelEnv({ url: "", token: "", spaceId: "x" });
const BACKUP = "settings-otel-backup.json";

/**
 * `chips connect claude --otel [--print]`: Claude Code in a room by its own OpenTelemetry, no
 * hooks (docs/CONNECT.md, docs/OTEL.md): the env block into the settings' `env`, or printed as
 * `export` lines for a shell with --print.
 */
export async function connectOtel(ctx: CommandContext): Promise<void> {
  const o = ctx.opts as ConnectOptions;
  const { url, token, space } = await harnessAndRoom(ctx);
  const env = claudeOtelEnv({ url, token, spaceId: space.id });
  if (o.print) {
    ctx.io.out(asShell(env) + "\n");
    return;
  }
  const settings = claudeSettingsFile(o, ctx.env);
  const root = privateDir(connectionDir(chipsHome(ctx.env), "claude", settings));
  try {
    installEnv(settings, path.join(root, BACKUP), env);
  } catch (e) {
    throw new CliError([`error: ${(e as Error).message}`]);
  }
  ctx.io.out(
    [
      `Claude Code in ${path.dirname(path.dirname(settings))} now sends its telemetry to room "${space.name}" (${space.id}).`,
      `  env added to    ${settings} (OTEL_* and CLAUDE_CODE_ENABLE_TELEMETRY; no hooks)`,
      `  the harness token is in that file's env: keep it out of the repository`,
      `  each session is a watch-only run with its tool calls; it finishes when its telemetry goes quiet`,
      `  undo:           chips disconnect claude --otel${o.user ? " --user" : o.settings ? ` --settings ${o.settings}` : ""}`,
      "",
    ].join("\n"),
  );
}

/** `chips disconnect claude --otel`: the settings back as they were before. */
export async function disconnectOtel(ctx: CommandContext): Promise<void> {
  const settings = claudeSettingsFile(ctx.opts as ConnectOptions, ctx.env);
  const root = connectionDir(chipsHome(ctx.env), "claude", settings);
  const r = removeEnv(path.join(root, BACKUP), NAMES);
  if (r.restored === "nothing") throw new CliError([`error: ${settings} is not connected by --otel`]);
  ctx.io.out(
    r.restored === "exact"
      ? `${r.file} is back exactly as it was before chips connect --otel.\n`
      : `${r.file} was changed since chips connect --otel: only Chips' variables were taken out.\n`,
  );
  if (fs.existsSync(root) && fs.readdirSync(root).length === 0) fs.rmdirSync(root);
}
