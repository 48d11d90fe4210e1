import { ClaudeAdapter, type ClaudeConfig } from "../../lib/agents/runner/adapters/claude";
import { CodexAdapter } from "../../lib/agents/runner/adapters/codex";
import type { RunnerOptions } from "../../lib/agents/runner/runner";
import { mockAnthropic, startMessagesServer, type MessagesScript, type MessagesServer } from "./messages-server";
import type { Script } from "./model-server";
import { runnerWorld, type World } from "./runner-world";

export interface ClaudeWorld extends World {
  messages: MessagesServer;
  claudeConfig: ClaudeConfig;
}

/**
 * {@link runnerWorld} whose runner drives the REAL Claude Code CLI against a scripted
 * Messages API — and also Codex when `codex` (its script) is given.
 */
export async function claudeWorld(o: {
  messages: MessagesScript;
  claude?: Partial<ClaudeConfig>;
  codex?: Script;
  runner?: Partial<RunnerOptions>;
  /** Name the model endpoint `localhost` (a hostname: the sandbox maps it in its /etc/hosts). */
  byName?: boolean;
}): Promise<ClaudeWorld> {
  const messages = await startMessagesServer(o.messages);
  const mock = mockAnthropic(messages);
  if (o.byName) mock.baseUrl = `http://localhost:${messages.port}`;
  const claudeConfig = { ...mock, ...o.claude };
  let world: World;
  try {
    world = await runnerWorld({
      script: o.codex,
      runner: o.runner,
      adapters: (codex) => [new ClaudeAdapter(claudeConfig), ...(o.codex ? [new CodexAdapter(codex)] : [])],
    });
  } catch (e) {
    await messages.close();
    throw e;
  }
  const close = world.close.bind(world);
  return Object.assign(world, {
    messages,
    claudeConfig,
    async close() {
      await close();
      await messages.close();
    },
  });
}
