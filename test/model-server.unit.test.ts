// The scripted Responses API (test/support/model-server.ts) driving the REAL Codex CLI:
// its JSONL item types, and how resume and a killed process show up in the model's history.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { jobProcesses, killJobProcesses, launch, stopGroup } from "@/lib/agents/runner/process";
import {
  lastUserText,
  patch,
  plan,
  say,
  shell,
  startModelServer,
  toolOutputs,
  type Script,
} from "./support/model-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const CODEX = path.join(ROOT, "node_modules", ".bin", "codex");

// Not under /tmp: Codex warns about a CODEX_HOME there (and its TMPDIR follows).
let base: string;
let repo: string;
beforeAll(() => {
  const parent = path.join(os.homedir(), ".cache", "chips-test");
  fs.mkdirSync(parent, { recursive: true });
  base = fs.mkdtempSync(path.join(parent, "model-server-"));
  repo = path.join(base, "repo");
  fs.mkdirSync(repo);
  for (const d of ["home", "tmp"]) fs.mkdirSync(path.join(base, d));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo });
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "README.md"), "scratch\n");
  git("add", "-A");
  git("-c", "user.name=Test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "init");
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** One `codex exec --json` process, launched as the runner will; its JSONL events as they come. */
function codex(url: string, job: string, args: string[]) {
  const events: any[] = [];
  const stderr: string[] = [];
  const flags = [
    "exec",
    "--json",
    "-s",
    "workspace-write",
    "-c",
    "tools.update_plan.enabled=true",
    "-c",
    "model_provider=mock",
    "-c",
    'model_providers.mock.name="mock"',
    "-c",
    `model_providers.mock.base_url="${url}"`,
    "-c",
    'model_providers.mock.wire_api="responses"',
    "-m",
    "mock-model",
  ];
  const proc = launch({
    cmd: CODEX,
    args: [...flags, ...args],
    cwd: repo,
    env: { ...process.env, CODEX_HOME: path.join(base, "home"), TMPDIR: path.join(base, "tmp"), CHIPS_JOB: job },
    onLine: (l) => events.push(JSON.parse(l)),
    onStderr: (l) => stderr.push(l),
  });
  return { proc, events, stderr };
}

const types = (events: any[]) => events.map((e) => (e.type.startsWith("item.") ? `${e.type}:${e.item.type}` : e.type));

/**
 * True once the agent's `sleep 30` of this job runs: its command is mid-flight. Matched by
 * full command line: a login shell's profile may start other sleeps (pyenv's background
 * rehash polls a lock with `sleep 0.1`, and outlives Codex).
 */
const sleeping = (job: string) =>
  jobProcesses(job).some((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") === "sleep\u000030\u0000";
    } catch {
      return false;
    }
  });

describe("model server with the real Codex CLI", () => {
  it("plans, runs a command, patches a file and answers", { timeout: 60_000 }, async () => {
    const script: Script = ({ input }) => {
      switch (toolOutputs(input)) {
        case 0:
          return {
            items: [
              plan([
                ["write a.txt", "in_progress"],
                ["add b.txt", "pending"],
              ]),
            ],
          };
        case 1:
          return { items: [shell("printf hi > a.txt")] };
        case 2:
          return { items: [patch("*** Add File: b.txt\n+hello from a patch")] };
        default:
          return { items: [say("done")] };
      }
    };
    const model = await startModelServer(script);
    try {
      const job = `model-${randomUUID()}`;
      const { proc, events, stderr } = codex(model.url, job, ["write two files"]);
      const exit = await proc.exited;
      expect(exit, stderr.join("\n")).toEqual({ code: 0, signal: null });
      const t = types(events);
      for (const want of [
        "thread.started",
        "turn.started",
        "item.started:todo_list",
        "item.completed:command_execution",
        "item.completed:file_change",
        "item.completed:agent_message",
        "turn.completed",
      ]) {
        expect(t).toContain(want);
      }
      expect(events.find((e) => e.item?.type === "todo_list").item.items).toEqual([
        { text: "write a.txt", completed: false },
        { text: "add b.txt", completed: false },
      ]);
      expect(events.find((e) => e.type === "item.completed" && e.item.type === "command_execution").item).toMatchObject(
        { exit_code: 0, status: "completed" },
      );
      expect(events.find((e) => e.type === "item.completed" && e.item.type === "file_change").item.changes).toEqual([
        { path: path.join(repo, "b.txt"), kind: "add" },
      ]);
      expect(events.find((e) => e.item?.type === "agent_message").item.text).toBe("done");
      expect(fs.readFileSync(path.join(repo, "a.txt"), "utf8")).toBe("hi");
      expect(fs.readFileSync(path.join(repo, "b.txt"), "utf8")).toBe("hello from a patch\n");

      // Every request resends the whole history; the prompt stays the newest user text.
      expect(model.requests.map((r) => toolOutputs(r.input))).toEqual([0, 1, 2, 3]);
      expect(model.requests.every((r) => r.stream === true && lastUserText(r.input) === "write two files")).toBe(true);
      expect(model.requests[0].tools.map((t: any) => t.name)).toEqual(
        expect.arrayContaining(["exec_command", "update_plan"]),
      );
      await killJobProcesses(job);
      expect(jobProcesses(job)).toEqual([]);
    } finally {
      await model.close();
    }
  });

  it(
    "resume: guidance is the newest user message after the whole history, and a killed command reads 'aborted'",
    { timeout: 60_000 },
    async () => {
      let phase = "first";
      const script: Script = ({ input }) => {
        const user = lastUserText(input);
        if (phase === "first")
          return { items: [toolOutputs(input) === 0 ? shell("printf one > one.txt") : say("first done")] };
        // In "second" and "third" a fresh turn starts a long command; then the process is killed.
        if (user === "second task" || user === "after SIGTERM")
          return { items: [shell(`echo started; sleep 30; echo ${phase} > late.txt`)] };
        return { items: [say("resumed")] };
      };
      const model = await startModelServer(script);
      const job = `model-${randomUUID()}`;
      try {
        // 1. A complete first turn.
        const first = codex(model.url, job, ["first task"]);
        expect((await first.proc.exited).code).toBe(0);
        // Even a clean exit can leave strays (a login shell's background jobs, in the sandbox's
        // own session): the runner sweeps after every process, and so does this test.
        await killJobProcesses(job);
        const thread = first.events.find((e) => e.type === "thread.started").thread_id;

        // 2. Resume with a new task; SIGTERM the group while its command runs.
        phase = "second";
        const second = codex(model.url, job, ["resume", thread, "second task"]);
        await vi.waitFor(
          () => expect([sleeping(job), types(second.events).at(-1)]).toEqual([true, "item.started:command_execution"]),
          { timeout: 20_000, interval: 50 },
        );
        process.kill(-second.proc.pid, "SIGTERM");
        expect(await second.proc.exited).toEqual({ code: null, signal: "SIGTERM" });
        // Nothing follows the command's item.started: no item.completed, no turn.failed.
        expect(types(second.events).at(-1)).toBe("item.started:command_execution");
        expect(second.events.find((e) => e.type === "thread.started").thread_id).toBe(thread);
        await killJobProcesses(job);
        expect(jobProcesses(job)).toEqual([]);

        // 3. Resume with guidance: the whole history is replayed, the killed call answered "aborted".
        phase = "third";
        const n = model.requests.length;
        const third = codex(model.url, job, ["resume", thread, "after SIGTERM"]);
        await vi.waitFor(() => expect(sleeping(job)).toBe(true), { timeout: 20_000, interval: 50 });
        const afterTerm = model.requests[n].input as any[];
        expect(afterTerm.at(-1)).toMatchObject({
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "after SIGTERM" }],
        });
        expect(lastUserText(afterTerm)).toBe("after SIGTERM");
        const texts = afterTerm
          .filter((i) => i.type === "message")
          .map((i) => `${i.role}:${i.content.map((c: any) => c.text).join("")}`);
        expect(texts).toEqual(expect.arrayContaining(["user:first task", "assistant:first done", "user:second task"]));
        const killedCall = afterTerm.find(
          (i) => i.type === "function_call" && i.arguments.includes("second > late.txt"),
        );
        expect(
          afterTerm
            .filter((i) => i.type === "function_call_output" && i.call_id === killedCall.call_id)
            .map((i) => i.output),
        ).toEqual(["aborted"]);
        expect(toolOutputs(afterTerm)).toBe(2);

        // 4. This time stop it as the runner does (SIGINT first): Codex records the abort itself.
        // A long SIGINT grace: this shows Codex ends on SIGINT, not how fast a loaded machine lets it.
        expect((await stopGroup(third.proc, { graceMs: { int: 30_000, term: 3000 } })).signals).toEqual(["SIGINT"]);
        expect((await third.proc.exited).code).toBe(1);
        await killJobProcesses(job);
        const m = model.requests.length;
        const fourth = codex(model.url, job, ["resume", thread, "after SIGINT"]);
        expect((await fourth.proc.exited).code).toBe(0);
        expect(fourth.events.find((e) => e.item?.type === "agent_message")?.item.text).toBe("resumed");
        const afterInt = model.requests[m].input as any[];
        expect(lastUserText(afterInt)).toBe("after SIGINT");
        expect(afterInt.at(-1).content[0].text).toBe("after SIGINT");
        const interrupted = afterInt.find(
          (i) => i.type === "function_call" && i.arguments.includes("third > late.txt"),
        );
        const out = afterInt.find((i) => i.type === "function_call_output" && i.call_id === interrupted.call_id);
        expect(out.output).toMatch(/aborted by user$/);
        expect(fs.existsSync(path.join(repo, "late.txt"))).toBe(false);
        await killJobProcesses(job);
        expect(jobProcesses(job)).toEqual([]);
      } finally {
        await killJobProcesses(job);
        await model.close();
      }
    },
  );

  it("answers 404 to anything but POST …/responses", async () => {
    const model = await startModelServer(() => ({ items: [] }));
    try {
      expect((await fetch(`${model.url}/models`)).status).toBe(404);
      expect((await fetch(`${model.url}/responses`)).status).toBe(404);
      expect(model.requests).toEqual([]);
    } finally {
      await model.close();
    }
  });
});
