import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defaultCodexBin } from "../lib/agents/runner/adapters/codex";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { outputsSinceUser, say, shell, startModelServer, type ModelServer } from "./support/model-server";
import { startTestServer, type TestServer } from "./support/server";

/**
 * The REAL Codex CLI (0.169, `codex exec`) against a scripted Responses API, with its `[otel]`
 * log exporter pointed at Chips and a harness's token: its session is a watch-only run whose
 * tool calls carry the command and the outcome the exit code says (Codex's own `success` says
 * only that the tool was dispatched) ([OTL5]).
 */
let server: TestServer;
let model: ModelServer;
let ws: Workspace;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-otel-codex-"));
beforeAll(async () => {
  server = await startTestServer({ otlpQuietSeconds: 2 });
  ws = await newWorkspace(server);
  model = await startModelServer(({ input }) => {
    switch (outputsSinceUser(input)) {
      case 0:
        return { items: [shell("echo hello > hello.txt")] };
      case 1:
        return { items: [shell("echo partial; exit 3")] };
      default:
        return { items: [say("hello.txt is there; the check failed.")] };
    }
  });
});
afterAll(async () => {
  await model?.close();
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it("[OTL5] Codex's own OTel logs, nothing else: its session is a run with its commands and their exit codes", async () => {
  const [project, codexHome, home, temp] = ["project", "codex-home", "home", "tmp"].map((d) => {
    fs.mkdirSync(path.join(tmp, d));
    return path.join(tmp, d);
  });
  execFileSync("git", ["init", "-q"], { cwd: project });
  const endpoint = `{ otlp-http = { endpoint = "${server.url}/v1/logs", protocol = "binary", headers = { "authorization" = "Bearer ${ws.token}" } } }`;
  fs.writeFileSync(
    path.join(codexHome, "config.toml"),
    `[otel]\nenvironment = "test"\nlog_user_prompt = true\nexporter = ${endpoint}\n`,
  );
  const codex = spawn(
    defaultCodexBin(),
    [
      "exec",
      "--json",
      "-s",
      "workspace-write",
      "-c",
      "model_provider=mock",
      "-c",
      'model_providers.mock.name="mock"',
      "-c",
      `model_providers.mock.base_url="${model.url}"`,
      "-c",
      'model_providers.mock.wire_api="responses"',
      "-m",
      "mock-model",
      "Write hello.txt and check it",
    ],
    {
      cwd: project,
      // CODEX_HOME outside TMPDIR: Codex will not make its helper aliases under its own temp dir.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        CODEX_HOME: codexHome,
        TMPDIR: temp,
      } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  codex.stdout.on("data", (d) => (out += d));
  codex.stderr.on("data", (d) => (out += d));
  expect(await new Promise((r) => codex.once("exit", r)), out).toBe(0);
  const thread = out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))
    .find((m) => m.type === "thread.started").thread_id;

  const runs = async () =>
    (await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/runs`, { token: ws.token })).body.runs as any[];
  await until(
    async () => (await runs())[0]?.state === "finished",
    "the run finished once its telemetry went quiet",
    30_000,
  );
  const [run] = await runs();
  expect(run).toMatchObject({
    session_ref: thread,
    goal: "Write hello.txt and check it",
    commands: [],
    harness_id: ws.harness_id,
  });
  expect(run.usage.input_tokens).toBeGreaterThan(0);
  expect(run.tools).toMatchObject({ count: 2, failed: 1, running: 0 });
  const calls = (await readEvents(server, ws)).filter((e) => e.type === "tool.finished");
  expect(calls.map((e) => [e.tool, e.summary, e.outcome, e.exit_code])).toEqual([
    ["exec_command", "echo hello > hello.txt", "ok", 0],
    ["exec_command", "echo partial; exit 3", "failed", 3],
  ]);
  for (const e of calls) expect(e.duration_ms).toBeGreaterThanOrEqual(0);
}, 180_000);
