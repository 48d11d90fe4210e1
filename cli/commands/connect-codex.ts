import os from "node:os";
import path from "node:path";
import { UsageError } from "../errors";
import { harnessAndRoom, type ConnectOptions } from "./connect-room";
import type { CommandContext } from "./context";
import { chipsHome, connectionDir, privateDir, writeAtomic, type Connection } from "@/lib/agents/connect/home";

/**
 * `chips connect codex [--space S] [--project DIR] [--codex-bin P]`: mirror the Codex sessions
 * run in DIR (default: here) into a room, until Ctrl-C. Leave it running beside your terminal.
 */
export async function connectCodex(ctx: CommandContext): Promise<void> {
  if (ctx.args.length > 1) throw new UsageError(`connect codex takes options only (got "${ctx.args[1]}")`);
  const o = ctx.opts as ConnectOptions & { project?: string; "codex-bin"?: string };
  const project = path.resolve(o.project ?? ".");
  const { url, token, me, space } = await harnessAndRoom(ctx);
  const root = privateDir(connectionDir(chipsHome(ctx.env), "codex", project));
  writeAtomic(path.join(root, "token"), token + "\n", 0o600);
  const conn: Connection = {
    agent: "codex",
    url,
    workspace_id: me.workspace_id,
    space_id: space.id,
    harness_id: me.id,
    project,
    created_at: new Date().toISOString(),
  };
  writeAtomic(path.join(root, "connection.json"), JSON.stringify(conn, null, 2) + "\n", 0o600);
  const codexHome = path.resolve(ctx.env.CODEX_HOME || path.join(os.homedir(), ".codex"));
  const { CodexWatcher } = await import("@/lib/agents/connect/codex/watch");
  const watcher = new CodexWatcher({
    conn,
    token,
    codexHome,
    stateDir: path.join(root, "state"),
    codexBin: o["codex-bin"],
    log: (l) => ctx.io.err(`${l}\n`),
  });
  watcher.start();
  ctx.io.out(
    `Mirroring the Codex sessions in ${project} (from ${codexHome}/sessions) into room "${space.name}" (${space.id}); a room's Steer reaches an interactive session as its next message (codex queue), other buttons are refused. Ctrl-C stops.\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => void watcher.stop().then(resolve, resolve);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
