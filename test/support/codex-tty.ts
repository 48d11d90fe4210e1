import fs from "node:fs";
import path from "node:path";
import { defaultCodexBin } from "../../lib/agents/runner/adapters/codex";
import { Tty } from "./tty";

/**
 * The REAL Codex CLI, interactive, in a pseudo-terminal, its model the scripted Responses
 * API at `modelUrl` (test/support/model-server.ts) — as a person runs `codex` in their
 * project — waiting at its prompt. A clean HOME: a login shell's rc files (pyenv here) must
 * not slow the agent's commands. First run in a new folder: Codex asks whether to trust it,
 * as it would anyone, and is answered Yes.
 */
export async function startCodexTty(o: { project: string; codexHome: string; tmp: string; modelUrl: string }) {
  const home = path.join(o.tmp, "home");
  for (const d of [o.project, o.codexHome, home]) fs.mkdirSync(d, { recursive: true });
  const tty = new Tty(
    o.project,
    [
      defaultCodexBin(),
      ...["model_provider=mock", 'model_providers.mock.name="mock"', 'model_providers.mock.wire_api="responses"']
        .concat(`model_providers.mock.base_url="${o.modelUrl}"`, "tools.update_plan.enabled=true")
        .flatMap((c) => ["-c", c]),
      "-m",
      "mock-model",
    ],
    {
      CODEX_HOME: o.codexHome,
      HOME: home,
      TMPDIR: o.tmp,
      PATH: process.env.PATH ?? "",
      TERM: "xterm-256color",
    },
  );
  await tty.waitFor(/Trust this folder|Ask Codex/, "Codex's first screen");
  if (/Trust this folder/.test(tty.screen())) tty.press("Enter");
  await tty.waitFor(/Ask Codex to do anything/, "Codex's prompt");
  return tty;
}

/**
 * Type a prompt and press Enter until Codex takes it (`runOf` finds its run in the room).
 * Codex's composer reads keys that arrive in a burst as a paste, and an Enter right behind
 * them can be taken into it rather than send: a fresh-clone CI and runs by hand on a quiet
 * machine left the prompt typed and unsent. An Enter on the empty composer after it did send
 * is ignored by Codex.
 */
export async function sendToCodex(
  tty: Tty,
  text: string,
  runOf: (goal: string, ms: number) => Promise<string>,
): Promise<string> {
  tty.type(text);
  await tty.waitFor(new RegExp(`› ${text}`), `"${text}" in the composer`);
  for (let tries = 1; ; tries++) {
    tty.press("Enter");
    try {
      return await runOf(text, tries < 5 ? 10_000 : 90_000);
    } catch (e) {
      if (tries >= 5) throw e;
    }
  }
}
