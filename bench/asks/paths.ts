import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { run as runCli } from "@/cli/main";
import { chipsHome, connectionDir } from "@/lib/agents/connect/home";
import { ChipsClient } from "@/lib/agents/sdk";
import { RunAsks } from "@/lib/agents/runner/asks";
import { ASK_HOOK, serveAsks } from "@/lib/agents/runner/ask-socket";
import { hookAnswer } from "@/lib/agents/runner/hook-answer";
import { CodexAdapter } from "@/lib/agents/runner/adapters/codex";
import type { Workspace } from "../lib/api";

/**
 * The ways an answer reaches an agent, each as the product wires it: `begin()` starts one
 * ask and answers when the agent side has the person's answer and resumes (performance.now()
 * of this process). The person's answer itself is posted by the caller.
 */
export interface AnswerPath {
  name: string;
  /** What "resumed" means on this path. */
  what: string;
  begin(): { resumed: Promise<number> };
  /** Where the agent side is another process: when its answer was handed over to it, per ask (performance.now()). */
  handedOver?: number[];
  close(): Promise<void>;
}

const permission = (n: number) => ({
  kind: "permission" as const,
  tool: "Bash",
  summary: `echo ${n} > made.txt`,
  command: `echo ${n} > made.txt`,
  expiresInSeconds: 300,
});

/** A harness client; `socket`: its `/harness` socket open (answers pushed), else long-poll only. */
async function harnessClient(url: string, ws: Workspace, socket: boolean) {
  const client = new ChipsClient({
    url,
    token: ws.token,
    workspaceId: ws.workspace_id,
    actor: { kind: "harness", id: ws.harness_id },
  });
  if (socket) {
    const sub = client.onCommand(async (_cmd, { apply }) => void (await apply()));
    await new Promise<void>((resolve, reject) => {
      if (sub.socket.connected) return resolve();
      sub.socket.once("connect", () => resolve());
      sub.socket.once("connect_error", reject);
    });
  }
  return client;
}

/** An SDK agent waiting on `client.ask` with its `/harness` socket open: the answer is pushed. */
export async function sdkSocket(url: string, ws: Workspace, runId: string): Promise<AnswerPath> {
  const client = await harnessClient(url, ws, true);
  let n = 0;
  return {
    name: "SDK agent, socket",
    what: "client.ask() resolves (the `/harness` socket's `answer`, long-poll racing it)",
    begin: () => ({
      resumed: client.ask(runId, permission(++n)).then(async (o) => {
        const t = performance.now();
        if (o.kind === "answered") await o.apply();
        return t;
      }),
    }),
    close: async () => client.close(),
  };
}

/**
 * A runner's `ask` run (`RunAsks`, its own client: no socket, the long-poll). `decide()`
 * resolving is when Claude Code's stdio control gets its verdict written to stdin.
 */
function runnerAsks(url: string, ws: Workspace, runId: string) {
  return new RunAsks({
    client: new ChipsClient({
      url,
      token: ws.token,
      workspaceId: ws.workspace_id,
      actor: { kind: "harness", id: ws.harness_id },
      retry: { attempts: 2, totalMs: 3000 },
      requestTimeoutMs: 10_000,
    }),
    runId,
    policy: new CodexAdapter().askPolicy,
    seconds: 300,
    source: "codex",
    redact: (s) => s,
    log: (line) => console.error(`[runner asks] ${line}`),
  });
}

export function runnerDecide(url: string, ws: Workspace, runId: string): AnswerPath {
  const asks = runnerAsks(url, ws, runId);
  let n = 0;
  return {
    name: "runner job, Claude Code stdio",
    what: "RunAsks.decide() resolves (the verdict is written to claude's stdin next)",
    begin: () => ({
      resumed: asks.decide({ tool: "Bash", input: { command: `echo ${++n}` }, toolUseId: null }).then(async (d) => {
        const t = performance.now();
        await d.report(true);
        return t;
      }),
    }),
    close: async () => {},
  };
}

/** The Codex `PreToolUse` hook (ask-hook.mjs) asking the job's unix socket, as Codex runs it. */
export async function runnerHook(url: string, ws: Workspace, runId: string, dir: string): Promise<AnswerPath> {
  const asks = runnerAsks(url, ws, runId);
  const sock = path.join(dir, "ask.sock");
  const handedOver: number[] = [];
  const server = await serveAsks(sock, async (input) => {
    const reply = await hookAnswer(asks, input, () => true);
    handedOver.push(performance.now()); // serveAsks writes the line next
    return reply;
  });
  let n = 0;
  return {
    name: "runner job, Codex hook",
    handedOver,
    what: "ask-hook.mjs prints `{}` (Codex runs the call next)",
    begin: () => ({
      resumed: printed(
        process.execPath,
        [ASK_HOOK, sock, "300"],
        { tool_name: "Bash", tool_input: { command: `echo ${++n}` }, hook_event_name: "PreToolUse" },
        {},
      ),
    }),
    close: async () => server.close(),
  };
}

/** Spawn a hook with `input` on stdin: when its first output arrives (performance.now()). */
function printed(cmd: string, args: string[], input: object, env: Record<string, string>, cwd?: string) {
  const p = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] });
  p.stdin.end(JSON.stringify(input));
  return new Promise<number>((resolve, reject) => {
    p.once("error", reject);
    p.stdout.once("data", () => resolve(performance.now()));
    p.once("close", (code) => reject(new Error(`${path.basename(args[0] ?? cmd)} exited ${code} without output`)));
  });
}

/**
 * `chips connect claude`'s PermissionRequest hook (hook.sh → ask.mjs) in one turn of one
 * session: the drainer takes the pushed answer and writes it where ask.mjs waits for it.
 */
export async function connectHook(
  url: string,
  ws: Workspace,
  dir: string,
  runStarted: (goal: string) => Promise<unknown>,
): Promise<AnswerPath> {
  const project = path.join(dir, "project");
  fs.mkdirSync(path.join(project, ".claude"), { recursive: true });
  const settings = path.join(project, ".claude", "settings.local.json");
  const env = { CHIPS_HOME: path.join(dir, "home"), CHIPS_URL: url, CHIPS_TOKEN: ws.token };
  let out = "";
  const io = { out: (s: string) => void (out += s), err: (s: string) => void (out += s) };
  if ((await runCli(["connect", "claude", "--settings", settings], { env, io })) !== 0)
    throw new Error(`chips connect claude: ${out}`);
  const root = connectionDir(chipsHome(env), "claude", settings);
  const sid = "7a3ebd29-7905-406b-b1e5-000000000001";
  const transcript = path.join(project, `${sid}.jsonl`);
  const prompt = "bench: asks";
  fs.writeFileSync(transcript, JSON.stringify({ type: "user", message: { role: "user", content: prompt } }) + "\n");
  const hook = (event: string, input: object) =>
    printed(
      "/bin/sh",
      [path.join(root, "hook.sh"), event],
      { session_id: sid, ...input, hook_event_name: event },
      {
        CLAUDE_CODE_ENTRYPOINT: "cli",
      },
    ).catch(() => 0); // UserPromptSubmit prints nothing
  const started = runStarted(prompt);
  await hook("UserPromptSubmit", { prompt, transcript_path: transcript, cwd: project });
  await started; // the turn's run: the hook asks only while one is going
  let n = 0;
  return {
    name: "chips connect claude hook",
    what: "ask.mjs prints its PermissionRequest decision (Claude Code runs the call next)",
    begin: () => ({
      resumed: printed(
        "/bin/sh",
        [path.join(root, "hook.sh"), "PermissionRequest"],
        {
          session_id: sid,
          transcript_path: transcript,
          cwd: project,
          permission_mode: "default",
          tool_name: "Bash",
          tool_input: { command: `echo ${++n} > made.txt` },
          permission_suggestions: [],
          hook_event_name: "PermissionRequest",
        },
        { CLAUDE_CODE_ENTRYPOINT: "cli" },
        project,
      ),
    }),
    close: async () => {
      const pid = Number(fs.readFileSync(path.join(root, "drainer.pid"), "utf8").trim() || 0);
      if (pid) process.kill(pid, "SIGTERM");
    },
  };
}
