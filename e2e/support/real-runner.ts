import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import type { Adapter } from "../../lib/agents/runner/adapter";
import { ClaudeAdapter, type ClaudeConfig } from "../../lib/agents/runner/adapters/claude";
import { CodexAdapter } from "../../lib/agents/runner/adapters/codex";
import { Runner, type RunnerOptions } from "../../lib/agents/runner/runner";
import { mockAnthropic, type MessagesServer } from "../../test/support/messages-server";
import { baseURL, type Workspace } from "./api";
import { RawRunner } from "./raw-runner";
import type { Scratch } from "./scratch";

/** A one-commit git repository on `main` for a runner's allowlist. */
function makeRepo(dir: string) {
  fs.mkdirSync(dir, { recursive: true });
  const git = (...a: string[]) => execFileSync("git", a, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(dir, "README.md"), "# Demo\n");
  git("add", "-A");
  git("-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "base");
  return dir;
}

/** The real Codex CLI, its model the scripted one at `modelUrl` (test/support/model-server.ts). */
export const scriptedCodex = (modelUrl: string) =>
  new CodexAdapter({
    config: [
      "model_provider=mock",
      'model_providers.mock.name="mock"',
      `model_providers.mock.base_url="${modelUrl}"`,
      'model_providers.mock.wire_api="responses"',
    ],
    model: "mock-model",
  });

/** The real Claude Code CLI, its model the scripted Messages API `model` (test/support/messages-server.ts). */
export const scriptedClaude = (model: MessagesServer, extra: ClaudeConfig = {}) =>
  new ClaudeAdapter({ ...mockAnthropic(model), ...extra });

/**
 * A real Runner connected to the e2e server: a runner credential of `workspace` made with
 * the admin token, repository `demo` (a fresh one-commit repository in the test's scratch
 * dir, its work beside it), driving `adapters` (the real CLIs: scriptedCodex/scriptedClaude).
 * Closed after the test. `as` makes it a Runner subclass (one that records what it is handed).
 */
export async function startRealRunner<R extends Runner = Runner>(
  scratch: Scratch,
  o: {
    request: APIRequestContext;
    adminToken: string;
    workspace: Workspace;
    name: string;
    adapters: Adapter[];
    as?: new (options: RunnerOptions) => R;
    options?: Partial<RunnerOptions>;
  },
): Promise<R> {
  const repo = makeRepo(scratch.path("repo"));
  const cred = await RawRunner.create(o.request, o.adminToken, o.workspace, o.name);
  const Make = o.as ?? (Runner as unknown as new (options: RunnerOptions) => R);
  const runner = new Make({
    url: baseURL(),
    token: cred.token,
    name: o.name,
    repositories: { demo: repo },
    workDir: scratch.path("work"),
    adapters: o.adapters,
    stopGraceMs: { int: 1500, term: 1500 },
    log: () => {},
    ...o.options,
  });
  scratch.closes(runner);
  await runner.connect();
  return runner;
}
