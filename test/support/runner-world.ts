import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ChipsConfig } from "../../lib/server/env";
import type { Adapter } from "../../lib/agents/runner/adapter";
import { CodexAdapter, type CodexConfig } from "../../lib/agents/runner/adapters/codex";
import { jobProcesses } from "../../lib/agents/runner/process";
import { Runner, type RunnerOptions } from "../../lib/agents/runner/runner";
import { newHarness, newWorkspace, request, key, type Workspace } from "./api";
import { until } from "./feed";
import { startModelServer, type ModelServer, type Script } from "./model-server";
import { startTestServer, type TestServer } from "./server";

export interface World {
  server: TestServer;
  ws: Workspace;
  runnerId: string;
  runnerToken: string;
  /** The allowlisted repository (`demo`) and its path. */
  repo: string;
  model: ModelServer;
  runner: Runner;
  tmp: string;
  logs: string[];
  codexConfig: CodexConfig;
  /** A Runner with this world's identity and config, not connected (for feeding it starts by hand). */
  makeRunner(extra?: Partial<RunnerOptions>): Runner;
  startRun(body?: Record<string, unknown>): Promise<string>;
  run(runId: string): Promise<any>;
  runnerEvents(runId: string): Promise<any[]>;
  waitRun(runId: string, pred: (run: any) => boolean, what: string, ms?: number): Promise<any>;
  object(runId: string, sha: string): Promise<Buffer>;
  close(): Promise<void>;
}

const sh = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, stdio: "pipe" }).toString();

/** A temporary git repository on `main` with a few files to edit. */
export function makeRepo(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  sh(dir, "init", "-q", "-b", "main");
  fs.writeFileSync(path.join(dir, "README.md"), "# Demo\n\nA repository for the runner's tests.\n");
  fs.writeFileSync(path.join(dir, "edit-me.txt"), "one\ntwo\nthree\n");
  fs.writeFileSync(path.join(dir, "delete-me.txt"), "bye\n");
  sh(dir, "add", "-A");
  sh(dir, "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "base");
  return dir;
}

/** The codex flags that point the real CLI at a scripted model (docs/RUNNERS.md). */
export function mockProvider(model: ModelServer): CodexConfig {
  return {
    config: [
      "model_provider=mock",
      'model_providers.mock.name="mock"',
      `model_providers.mock.base_url="${model.url}"`,
      'model_providers.mock.wire_api="responses"',
    ],
    model: "mock-model",
  };
}

/**
 * The real server, a runner credential, a temporary repository, a scripted model, and a
 * real Runner driving the real Codex CLI — all in this process but the CLI and its tools.
 */
export async function runnerWorld(o: {
  /** The scripted Codex model (default: one that fails every request). */
  script?: Script;
  server?: Partial<ChipsConfig>;
  runner?: Partial<RunnerOptions>;
  codex?: Partial<CodexConfig>;
  /** The runner's adapters (default: Codex against this world's scripted model). */
  adapters?: (codex: CodexConfig) => Adapter[];
  /** More Codex `-c` overrides after the scripted provider's. */
  codexExtra?: string[];
  connect?: boolean;
}): Promise<World> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-runner-"));
  const server = await startTestServer(o.server);
  const ws = await newWorkspace(server);
  const cred = await newHarness(server, ws, "test runner", "runner");
  const repo = makeRepo(path.join(tmp, "repo"));
  const model = await startModelServer(o.script ?? (() => Promise.reject(new Error("this world has no Codex script"))));
  const provider = mockProvider(model);
  const codexConfig = { ...provider, ...o.codex, config: [...provider.config!, ...(o.codexExtra ?? [])] };
  const logs: string[] = [];
  const makeRunner = (extra: Partial<RunnerOptions> = {}) =>
    new Runner({
      url: server.url,
      token: cred.token,
      name: "test runner",
      repositories: { demo: repo },
      workDir: path.join(tmp, "work"),
      adapters: o.adapters ? o.adapters(codexConfig) : [new CodexAdapter(codexConfig)],
      stopGraceMs: { int: 1500, term: 1500 },
      log: (l) => logs.push(l),
      ...o.runner,
      ...extra,
    });
  const runner = makeRunner();
  if (o.connect !== false) await runner.connect();

  const world: World = {
    server,
    ws,
    runnerId: cred.harness_id,
    runnerToken: cred.token,
    repo,
    model,
    runner,
    tmp,
    logs,
    codexConfig,
    makeRunner,
    async startRun(body = {}) {
      const r = await request(`${server.url}/api/v1/runs`, {
        method: "POST",
        token: ws.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          space_id: ws.space_id,
          prompt: "Do the task",
          repository: "demo",
          idempotency_key: key(),
          ...body,
        }),
      });
      if (r.status !== 201) throw new Error(`run not started: ${r.status} ${r.text}`);
      return r.body.run_id as string;
    },
    async run(runId) {
      const r = await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token });
      return r.body;
    },
    async runnerEvents(runId) {
      const r = await request(`${server.url}/api/v1/runs/${runId}/runner-events`, { token: ws.token });
      if (r.status !== 200) throw new Error(`runner events: ${r.status} ${r.text}`);
      return r.body.events;
    },
    async waitRun(runId, pred, what, ms = 90_000) {
      let last: any = null;
      await until(
        async () => pred((last = await world.run(runId))),
        () => `${what} (last: ${brief(last)})`,
        ms,
      );
      return last;
    },
    async object(runId, sha) {
      const signed = await request(`${server.url}/api/v1/runs/${runId}/objects/${sha}`, { token: ws.person_token });
      if (signed.status !== 200) throw new Error(`no object url: ${signed.status} ${signed.text}`);
      const res = await fetch(`${server.url}${signed.body.url}`);
      if (res.status !== 200) throw new Error(`object read ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    },
    async close() {
      await runner.close().catch(() => {});
      await model.close();
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
  return world;
}

/** What a failed wait says of a run: its state, pending command, outcome and summary. */
export const brief = (run: any) =>
  JSON.stringify(run && { state: run.state, pending: run.pending, outcome: run.outcome, summary: run.summary });

/** A command's receipt, as GET /api/v1/runs/:run/commands answers it. */
export async function receiptOf(w: Pick<World, "server" | "ws">, runId: string, commandId: string) {
  const r = await request(`${w.server.url}/api/v1/runs/${runId}/commands`, { token: w.ws.token });
  return r.body.commands.find((c: any) => c.command_id === commandId);
}

/**
 * The agent is inside `printf started > started.txt && sleep 30`: the status says so, and
 * the command's first half has written (the status comes when the command starts). Answers
 * the worktree.
 */
export async function whileSleeping(w: Pick<World, "waitRun" | "runnerEvents">, runId: string): Promise<string> {
  await w.waitRun(
    runId,
    (r) => r.state === "running" && /sleep 30/.test(r.status?.verb_phrase ?? ""),
    "the agent runs sleep 30",
  );
  const worktree = (await w.runnerEvents(runId)).find((e: any) => e.kind === "started").payload.worktree as string;
  await until(() => fs.existsSync(path.join(worktree, "started.txt")), "started.txt written");
  if (!jobProcesses(runId).length) throw new Error(`no process holds CHIPS_JOB=${runId} while the agent sleeps`);
  return worktree;
}
