import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { claudeOtelEnv } from "../lib/agents/connect/claude/otel-env";
import { defaultClaudeBin } from "../lib/agents/runner/adapters/claude";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import {
  bash,
  say,
  startMessagesServer,
  todo,
  toolResultsSinceUser,
  type MessagesServer,
} from "./support/messages-server";
import { startTestServer, type TestServer } from "./support/server";

/**
 * The REAL Claude Code CLI (2.1.141) against a scripted Messages API, with nothing but its own
 * telemetry switched on — the environment `chips connect claude --otel` writes, no hooks — and
 * Chips as its OTLP endpoint: the session is a watch-only run with its plan, usage and tool
 * calls (names, durations, outcomes), finished when its telemetry goes quiet ([OTL5], [OTL4]).
 */
let server: TestServer;
let model: MessagesServer;
let ws: Workspace;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer({ otlpQuietSeconds: 2 });
  ws = await newWorkspace(server);
  model = await startMessagesServer(({ messages, body }) => {
    if (!body.tools?.some((t: { name?: string }) => t.name === "Bash")) return { blocks: [say("ok")] }; // a side request, not the turn
    switch (toolResultsSinceUser(messages).length) {
      case 0:
        return {
          blocks: [
            todo([
              ["Write hello.txt", "in_progress"],
              ["Check the exit", "pending"],
            ]),
          ],
        };
      case 1:
        return { blocks: [bash("echo hello > hello.txt")] };
      case 2:
        return { blocks: [bash("echo partial; exit 3")] };
      default:
        return { blocks: [say("Done: hello.txt written, the check failed.")] };
    }
  });
});
afterAll(async () => {
  await model?.close();
  await server?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const tmp = (name: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `chips-otel-${name}-`));
  dirs.push(d);
  return d;
};

it("[OTL5] [OTL4] Claude Code's own telemetry, no hooks: its session is a run with its tool calls, finished when it goes quiet", async () => {
  const project = tmp("project");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: tmp("home"), // a clean HOME: a login shell's rc files must not slow the commands
    CLAUDE_CONFIG_DIR: tmp("config"),
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "sk-ant-mock",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    ...claudeOtelEnv({ url: server.url, token: ws.token }),
  };
  const claude = spawn(
    defaultClaudeBin(),
    ["-p", "Write hello.txt and check it", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash"],
    { cwd: project, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  claude.stdout.on("data", (d) => (out += d));
  claude.stderr.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((r) => claude.once("exit", r));
  expect(code, out).toBe(0);
  const init = out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .find((m) => m.type === "system" && m.subtype === "init");
  expect(fs.readFileSync(path.join(project, "hello.txt"), "utf8")).toBe("hello\n");
  expect(fs.existsSync(path.join(project, ".claude"))).toBe(false); // no hooks, no settings: telemetry only

  const runs = async () =>
    (await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/runs`, { token: ws.token })).body.runs as any[];
  await until(
    async () => (await runs())[0]?.state === "finished",
    "the run finished once its telemetry went quiet",
    30_000,
  );
  const [run] = await runs();
  expect(run).toMatchObject({
    session_ref: init.session_id,
    goal: "Claude Code session " + init.session_id.slice(0, 8),
    commands: [],
    outcome: "succeeded",
    harness_id: ws.harness_id,
  });
  expect(run.usage.input_tokens).toBeGreaterThan(0);
  // Claude Code's telemetry writes a todo list's items as "<nested>": the plan does not come
  // through it (its hooks give it), and TodoWrite is a call like any other.
  expect(run.plan).toEqual([]);
  expect(run.tools).toMatchObject({ count: 3, failed: 1, running: 0 });
  const calls = run.tools.last.map((c: any) => ({ tool: c.tool, summary: c.summary, outcome: c.outcome }));
  expect(calls).toEqual([
    { tool: "TodoWrite", summary: "TodoWrite", outcome: "ok" },
    { tool: "Bash", summary: "echo hello > hello.txt", outcome: "ok" },
    { tool: "Bash", summary: "echo partial; exit 3", outcome: "failed" },
  ]);
  for (const c of run.tools.last.slice(1)) expect(c.duration_ms).toBeGreaterThan(0);
  const finished = (await readEvents(server, ws)).filter((e) => e.type === "tool.finished");
  expect(finished.map((e) => e.call_id)).toEqual(run.tools.last.map((c: any) => c.call_id));
  expect(finished[2].error).toBe("ShellError: Shell command failed");
}, 180_000);
