import fs from "node:fs";
import path from "node:path";
import { defaultClaudeBin } from "../../lib/agents/runner/adapters/claude";
import { Tty } from "./tty";

/**
 * The REAL Claude Code CLI, interactive, in a pseudo-terminal, talking to a scripted
 * Messages API at `modelUrl` — as a person runs `claude` in their project.
 *
 * Its first-run onboarding cannot be passed offline: it checks that api.anthropic.com
 * answers and stops at "Unable to connect to Anthropic services" (measured with 2.1.141).
 * So the config dir is seeded with what it holds on any machine where Claude Code ran once:
 * `hasCompletedOnboarding`, and the environment's API key approved (its last 20 characters in
 * `customApiKeyResponses.approved`, as Claude Code itself records a "Yes"). The key question
 * was answered with keys (Up, Enter) until a red CI run: its default is "No", the Up did not
 * always take, and in 3 of 12 starts the key ended up in `rejected` — the session then
 * answers "Not logged in" to every prompt. The trust question that remains is answered as a
 * person would (Enter; its default is "Yes", and a lost Enter fails loudly).
 */
const API_KEY = "sk-ant-mock";

export async function startClaudeTty(o: {
  project: string;
  configDir: string;
  home: string;
  modelUrl: string;
}): Promise<Tty> {
  fs.mkdirSync(o.configDir, { recursive: true });
  const seeded = path.join(o.configDir, ".claude.json");
  if (!fs.existsSync(seeded))
    fs.writeFileSync(
      seeded,
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: "dark",
        customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      }),
    );
  fs.mkdirSync(o.home, { recursive: true });
  const tty = new Tty(o.project, [defaultClaudeBin()], {
    CLAUDE_CONFIG_DIR: o.configDir,
    ANTHROPIC_BASE_URL: o.modelUrl,
    ANTHROPIC_API_KEY: API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    // A clean HOME: a login shell's rc files (pyenv here) must not slow the agent's commands.
    HOME: o.home,
    PATH: process.env.PATH ?? "",
    TERM: "xterm-256color",
  });
  const TRUST = /Yes, I trust this folder/;
  for (;;) {
    const screen = await tty.waitFor(/Yes, I trust this folder|\? for shortcuts/, "Claude Code's next screen");
    if (!TRUST.test(screen)) return tty;
    tty.press("Enter");
    await tty.waitScreen((s) => !TRUST.test(s), "the trust question answered");
  }
}

/** Type a prompt into the session and send it. */
export function typePrompt(tty: Tty, text: string): void {
  tty.type(text);
  tty.press("Enter");
}
