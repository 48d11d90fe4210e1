import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { CodexAdapter } from "../../lib/agents/runner/adapters/codex";
import type { Runner } from "../../lib/agents/runner/runner";
import type { ModelServer } from "../../test/support/model-server";
import { baseURL } from "./api";
import { test } from "./fixtures";

/** A one-commit git repository on `main` for a runner's allowlist. */
export function makeRepo(dir: string) {
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

/** A real Runner's options for the e2e: repository `demo` at `repo`, its work under `tmp`, the scripted Codex. */
export const codexRunnerOptions = (
  token: string,
  name: string,
  repo: string,
  tmp: string,
  modelUrl: string,
): ConstructorParameters<typeof Runner>[0] => ({
  url: baseURL(),
  token,
  name,
  repositories: { demo: repo },
  workDir: path.join(tmp, "work"),
  adapters: [scriptedCodex(modelUrl)],
  stopGraceMs: { int: 1500, term: 1500 },
  log: () => {},
});

/**
 * What a real-Codex test holds — its Runner, the scripted model, a temp dir (the repository
 * and the runner's work) — closed and removed after each test of the file that calls this.
 */
export function codexTestKit() {
  const kit: { model: ModelServer | null; runner: Runner | null; tmp: string } = { model: null, runner: null, tmp: "" };
  test.afterEach(async () => {
    await kit.runner?.close();
    await kit.model?.close();
    if (kit.tmp) fs.rmSync(kit.tmp, { recursive: true, force: true });
    Object.assign(kit, { model: null, runner: null, tmp: "" });
  });
  return kit;
}
