import { spawn } from "node:child_process";
import path from "node:path";
import { defaultClaudeBin } from "../../lib/agents/runner/adapters/claude";

/**
 * The REAL Claude Code CLI under `claude -p <prompt> --output-format stream-json --verbose` in
 * `project`, as a person runs it in a script, against the scripted Messages API at `modelUrl`.
 * Its config and HOME are fresh dirs beside the project. Answers its stdout once it exits.
 */
export function claudePrint(o: { project: string; modelUrl: string; prompt: string }): Promise<string> {
  const p = spawn(defaultClaudeBin(), ["-p", o.prompt, "--output-format", "stream-json", "--verbose"], {
    cwd: o.project,
    // Claude Code's own variables only: nothing of whatever runs the test (NODE_ENV kept for the type).
    env: {
      NODE_ENV: process.env.NODE_ENV,
      PATH: process.env.PATH ?? "",
      HOME: path.join(o.project, "..", "home"),
      CLAUDE_CONFIG_DIR: path.join(o.project, "..", "claude-config-p"),
      ANTHROPIC_BASE_URL: o.modelUrl,
      ANTHROPIC_API_KEY: "sk-ant-mock",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  p.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  return new Promise<string>((resolve, reject) => {
    p.once("error", reject);
    p.once("close", () => resolve(out));
  });
}

/** The `result` line's text of a `claude -p` stream-json output. */
export const finalOf = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .find((j) => j.type === "result")?.result as string;
