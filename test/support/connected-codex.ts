import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { defaultCodexBin } from "../../lib/agents/runner/adapters/codex";
import { startCodexTty } from "./codex-tty";
import type { Tty } from "./tty";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * A person's own Codex watched by Chips, as they set it up: `chips connect codex` started
 * in their project (`<tmp>/project`, its Codex home `<tmp>/codex-home`) and mirroring, then
 * the REAL Codex CLI in a pseudo-terminal at its prompt, its model the scripted one at
 * `modelUrl`. `close()` hangs up Codex, then stops the watcher. Used by vitest and Playwright
 * alike, so it waits on the watcher's own output, not through either's expect.
 */
export async function connectedCodex(o: { url: string; token: string; tmp: string; modelUrl: string }) {
  const project = path.join(o.tmp, "project");
  const codexHome = path.join(o.tmp, "codex-home");
  fs.mkdirSync(project, { recursive: true });
  const watcher = spawn(
    process.execPath,
    [path.join(ROOT, "bin/chips.mjs"), "connect", "codex", "--codex-bin", defaultCodexBin()],
    {
      cwd: project,
      env: {
        ...process.env,
        CHIPS_HOME: path.join(o.tmp, "chips-home"),
        CHIPS_URL: o.url,
        CHIPS_TOKEN: o.token,
        CODEX_HOME: codexHome,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise<void>((r) => watcher.once("exit", () => r()));
  let out = "";
  watcher.stdout.on("data", (d) => (out += d));
  watcher.stderr.on("data", (d) => (out += d));
  let tty: Tty | null = null;
  const close = async () => {
    await tty?.close();
    if (watcher.exitCode === null && watcher.signalCode === null) watcher.kill("SIGTERM");
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`chips connect codex not mirroring after 30 s:\n${out}`)),
        30_000,
      );
      const check = () => /Mirroring the Codex sessions/.test(out) && (clearTimeout(timer), resolve());
      watcher.stdout.on("data", check);
      watcher.stderr.on("data", check);
      void exited.then(() => (clearTimeout(timer), reject(new Error(`chips connect codex exited:\n${out}`))));
    });
    tty = await startCodexTty({ project, codexHome, tmp: o.tmp, modelUrl: o.modelUrl });
  } catch (e) {
    await close();
    throw e;
  }
  return { tty, watcherOutput: () => out, close };
}
