import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, readEvents, type Workspace } from "./support/api";
import { callHook, connectClaude, runEvents, waitForRun, type Connected } from "./support/claude-connect";
import { until } from "./support/feed";
import { command, receipts } from "./support/harness";
import { tcpProxy } from "./support/proxies";
import { startTestServer, type TestServer } from "./support/server";

/**
 * `chips connect claude` without Claude: the installed hook script, its gate and its
 * drainer (all real processes), called the way Claude Code 2.1.141 calls them — the same
 * stdin JSON, measured with the real CLI (test/connect-claude-cli.pg.test.ts runs the CLI
 * itself). Commands go through the real commands API; events are read back from Chips.
 */
let server: TestServer;
let ws: Workspace;
let c: Connected | null = null;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());
afterEach(async () => {
  await c?.close();
  c = null;
});

let n = 0;
const sid = () => `5e3ebd29-7905-406b-b1e5-${String(++n).padStart(12, "0")}`;
const pre = (session_id: string, tool_name: string, tool_input: Record<string, unknown>) => ({
  session_id,
  tool_name,
  tool_input,
  tool_use_id: `toolu_${++n}`,
});
const receipt = async (runId: string, commandId: string) =>
  (await receipts(server, ws, runId)).commands.find((x: any) => x.command_id === commandId);
const waitReceipt = (runId: string, commandId: string, want: string) =>
  until(async () => (await receipt(runId, commandId))?.receipt === want, `receipt ${want}`);

describe("chips connect claude: hooks → room", () => {
  it("a typed prompt is a run (goal_from harness, session_ref); todos are dots; tools the typing indicator; Stop the answer, usage and the end", async () => {
    c = await connectClaude(server.url, ws);
    expect(c.out).toContain("hooks added to");
    expect(fs.statSync(path.join(c.root, "token")).mode & 0o777).toBe(0o600);
    const s = sid();
    const started = new Date(Date.now() - 1000).toISOString();
    expect((await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Fix the flaky test" })).stdout).toBe("");
    const runId = await waitForRun(server.url, ws, "Fix the flaky test");
    const todos = [
      { content: "Read the test", status: "in_progress", activeForm: "Reading the test" },
      { content: "Fix it", status: "pending", activeForm: "Fixing it" },
    ];
    await callHook(c, "PreToolUse", pre(s, "TodoWrite", { todos }));
    await callHook(c, "PostToolUse", { ...pre(s, "TodoWrite", { todos }), tool_response: { newTodos: todos } });
    await callHook(c, "PreToolUse", pre(s, "Bash", { command: "npm test" }));
    todos[0].status = "completed";
    todos[1].status = "in_progress";
    await callHook(c, "PostToolUse", { ...pre(s, "TodoWrite", { todos }), tool_response: { newTodos: todos } });
    await callHook(c, "PreToolUse", pre(s, "Read", { file_path: "/p/a.test.ts" }));
    const transcript = path.join(c.project, "t.jsonl");
    const at = new Date().toISOString();
    fs.writeFileSync(
      transcript,
      [
        {
          type: "assistant",
          timestamp: at,
          message: { id: "m1", usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2 } },
        },
        {
          type: "assistant",
          timestamp: at,
          message: { id: "m1", usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2 } },
        },
        { type: "assistant", timestamp: at, message: { id: "m2", usage: { input_tokens: 20, output_tokens: 7 } } },
        {
          type: "assistant",
          timestamp: "2000-01-01T00:00:00Z",
          message: { id: "old", usage: { input_tokens: 999, output_tokens: 999 } },
        },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    await callHook(c, "Stop", {
      session_id: s,
      transcript_path: transcript,
      stop_hook_active: false,
      last_assistant_message: "Fixed: the **timeout** was too short.",
    });
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "run.finished");
    const events = await runEvents(server.url, ws, runId);
    const first = events[0];
    expect(first).toMatchObject({
      type: "run.started",
      goal: "Fix the flaky test",
      goal_from: "harness",
      session_ref: s,
      space_id: ws.space_id,
    });
    expect(started <= first.ts).toBe(true);
    const steps = events.filter((e: any) => e.type === "run.step").map((e: any) => `${e.step_id}:${e.state}`);
    expect(steps).toEqual(["todo-0:active", "todo-1:pending", "todo-0:done", "todo-1:active"]);
    const phrases = events.filter((e: any) => e.type === "run.status").map((e: any) => e.verb_phrase);
    expect(phrases).toEqual(["Reading the test…", "Reading the test…", "Fixing it…", "Fixing it…"]);
    expect(events.filter((e: any) => e.type === "message.posted").map((e: any) => e.text)).toEqual([
      "Fixed: the **timeout** was too short.",
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "run.finished",
      outcome: "succeeded",
      usage: { input_tokens: 32, output_tokens: 12, cached_input_tokens: 2 },
    });
    expect(new Set(events.map((e: any) => e.idempotency_key)).size).toBe(events.length);
  });

  it("the task tools (TaskCreate/TaskUpdate, by tool name) are dots too; a tool with no todo in progress says what it does", async () => {
    c = await connectClaude(server.url, ws);
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Tidy the docs" });
    const runId = await waitForRun(server.url, ws, "Tidy the docs");
    await callHook(c, "PreToolUse", pre(s, "Grep", { pattern: "TODO" }));
    await callHook(c, "PostToolUse", {
      ...pre(s, "TaskCreate", { subject: "Find stale pages", description: "d", activeForm: "Finding stale pages" }),
      tool_response: "Task #1 created successfully: Find stale pages",
    });
    await callHook(c, "PostToolUse", {
      ...pre(s, "TaskCreate", { subject: "Rewrite them", description: "d" }),
      tool_response: { task: { id: "2", subject: "Rewrite them" } },
    });
    await callHook(c, "PostToolUse", {
      ...pre(s, "TaskUpdate", { taskId: "1", status: "in_progress" }),
      tool_response: "Updated task #1 status",
    });
    await callHook(c, "PostToolUse", {
      ...pre(s, "TaskUpdate", { taskId: "1", status: "completed" }),
      tool_response: "Updated task #1 status",
    });
    await callHook(c, "Stop", { session_id: s, stop_hook_active: false, last_assistant_message: "Done." });
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "run.finished");
    const events = await runEvents(server.url, ws, runId);
    expect(events.filter((e: any) => e.type === "run.status")[0].verb_phrase).toBe("Searching for TODO…");
    expect(
      events.filter((e: any) => e.type === "run.step").map((e: any) => `${e.step_id}:${e.state}:${e.title ?? ""}`),
    ).toEqual(["todo-0:active:Find stale pages", "todo-1:pending:Rewrite them", "todo-0:done:", "todo-1:active:"]);
  });
});

describe("chips connect claude: the room's buttons reach the session through its hooks", () => {
  it("pause holds the next tool call until resume: applied when held, resume applied when let go", async () => {
    c = await connectClaude(server.url, ws);
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Pause me" });
    const runId = await waitForRun(server.url, ws, "Pause me");
    const p = (await command(server, ws, runId, "pause")).body;
    await waitReceipt(runId, p.command_id, "delivered");
    await until(() => fs.existsSync(path.join(c!.root, "sessions", s, "gate")), "the gate armed");
    let answered = false;
    const held = callHook(c, "PreToolUse", pre(s, "Bash", { command: "rm -rf build" })).then(
      (a) => ((answered = true), a),
    );
    await waitReceipt(runId, p.command_id, "applied");
    expect(answered).toBe(false);
    const r = (await command(server, ws, runId, "resume")).body;
    const a = await held;
    expect(a.code).toBe(0);
    expect(a.json).toBeNull(); // let go: the call runs
    await waitReceipt(runId, r.command_id, "applied");
    await callHook(c, "Stop", { session_id: s, stop_hook_active: false, last_assistant_message: "ok" });
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "finished");
    const types = (await runEvents(server.url, ws, runId)).map((e: any) => e.type);
    // The held call's own status comes after the resume (nothing is posted while paused).
    expect(types.indexOf("run.status")).toBeGreaterThan(types.lastIndexOf("run.command_acked"));
  });

  it("a held call is denied with the reason when the hold's time runs out; the run stays paused", async () => {
    c = await connectClaude(server.url, ws, ["--hold-seconds", "1"]);
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Hold me briefly" });
    const runId = await waitForRun(server.url, ws, "Hold me briefly");
    const p = (await command(server, ws, runId, "pause")).body;
    await until(() => fs.existsSync(path.join(c!.root, "sessions", s, "gate")), "the gate armed");
    const a = await callHook(c, "PreToolUse", pre(s, "Bash", { command: "make" }));
    expect(a.json.hookSpecificOutput).toMatchObject({ hookEventName: "PreToolUse", permissionDecision: "deny" });
    expect(a.json.hookSpecificOutput.permissionDecisionReason).toMatch(
      /paused this session; this call was held 1 s and not run/,
    );
    await waitReceipt(runId, p.command_id, "applied");
  });

  it("a steer reaches the agent at its next tool call (denied with the guidance) or at its stop (blocked with it); acked applied then", async () => {
    c = await connectClaude(server.url, ws);
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Steer me" });
    const runId = await waitForRun(server.url, ws, "Steer me");
    const st = (await command(server, ws, runId, "steer", "Use pnpm, not npm")).body;
    await until(() => fs.existsSync(path.join(c!.root, "sessions", s, "gate")), "the gate armed");
    const a = await callHook(c, "PreToolUse", pre(s, "Bash", { command: "npm install" }));
    expect(a.json.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(a.json.hookSpecificOutput.permissionDecisionReason).toContain("Use pnpm, not npm");
    await waitReceipt(runId, st.command_id, "applied");
    // Handed over once: the next call runs.
    expect((await callHook(c, "PreToolUse", pre(s, "Bash", { command: "pnpm install" }))).json).toBeNull();
    const st2 = (await command(server, ws, runId, "steer", "Also update the lockfile")).body;
    await until(() => fs.existsSync(path.join(c!.root, "sessions", s, "gate")), "the gate armed again");
    const stop = await callHook(c, "Stop", {
      session_id: s,
      stop_hook_active: false,
      last_assistant_message: "Installed.",
    });
    expect(stop.json).toMatchObject({ decision: "block" });
    expect(stop.json.reason).toContain("Also update the lockfile");
    await waitReceipt(runId, st2.command_id, "applied");
    // The blocked stop did not end the run; the next one does.
    await callHook(c, "Stop", { session_id: s, stop_hook_active: true, last_assistant_message: "Lockfile updated." });
    await until(async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1, "finished");
    const texts = (await runEvents(server.url, ws, runId, "message.posted")).map((e: any) => e.text);
    expect(texts).toEqual(["Installed.", "Lockfile updated."]);
  });

  it("cancel: the next call is denied and the turn's later ones too; the run finishes cancelled; PostToolUse stops the turn (continue: false)", async () => {
    c = await connectClaude(server.url, ws);
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Cancel me" });
    const runId = await waitForRun(server.url, ws, "Cancel me");
    const x = (await command(server, ws, runId, "cancel")).body;
    await until(() => fs.existsSync(path.join(c!.root, "sessions", s, "gate")), "the gate armed");
    const a = await callHook(c, "PreToolUse", pre(s, "Bash", { command: "deploy" }));
    expect(a.json.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(a.json.hookSpecificOutput.permissionDecisionReason).toMatch(/cancelled this turn/);
    await waitReceipt(runId, x.command_id, "applied");
    await until(
      async () => (await runEvents(server.url, ws, runId, "run.finished"))[0]?.outcome === "cancelled",
      "finished cancelled",
    );
    expect(
      (await callHook(c, "PreToolUse", pre(s, "Bash", { command: "deploy --force" }))).json.hookSpecificOutput
        .permissionDecision,
    ).toBe("deny");
    expect((await callHook(c, "PostToolUse", { ...pre(s, "Bash", { command: "x" }), tool_response: {} })).json).toEqual(
      { continue: false, stopReason: "Cancelled from the Chips room" },
    );
    // The next prompt is a new turn: nothing of the cancel reaches it.
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Next thing" });
    await waitForRun(server.url, ws, "Next thing");
    expect((await callHook(c, "PreToolUse", pre(s, "Bash", { command: "ls" }))).json).toBeNull();
  });

  it("a pause that never meets a tool call is refused when the turn stops", async () => {
    c = await connectClaude(server.url, ws);
    const s = sid();
    await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Quick answer" });
    const runId = await waitForRun(server.url, ws, "Quick answer");
    const p = (await command(server, ws, runId, "pause")).body;
    await until(() => fs.existsSync(path.join(c!.root, "sessions", s, "gate")), "the gate armed");
    await callHook(c, "Stop", { session_id: s, stop_hook_active: false, last_assistant_message: "42" });
    await until(async () => (await receipt(runId, p.command_id))?.receipt === "rejected", "pause rejected");
    expect((await receipt(runId, p.command_id)).reason).toMatch(
      /turn ended before the agent reached another tool call/,
    );
    expect((await runEvents(server.url, ws, runId, "run.finished"))[0].outcome).toBe("succeeded");
  });
});

describe("chips connect claude: Chips down", () => {
  it("hooks answer at once while Chips is unreachable; queued events arrive in order, once, when it returns", async () => {
    const proxy = await tcpProxy(server.url);
    try {
      c = await connectClaude(proxy.url, ws);
      const s = sid();
      await callHook(c, "UserPromptSubmit", { session_id: s, prompt: "Before the outage" });
      const runId = await waitForRun(server.url, ws, "Before the outage");
      proxy.cut();
      for (let i = 0; i < 5; i++) {
        const a = await callHook(c, "PreToolUse", pre(s, "Bash", { command: `step ${i}` }));
        expect(a.code).toBe(0);
        expect(a.json).toBeNull();
      }
      await callHook(c, "Stop", { session_id: s, stop_hook_active: false, last_assistant_message: "Done offline." });
      await until(() => fs.readdirSync(path.join(c!.root, "spool")).length === 0, "the queue applied into the outbox");
      expect((await runEvents(server.url, ws, runId)).map((e: any) => e.type)).toEqual(["run.started"]);
      proxy.restore();
      await until(
        async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1,
        "the rest arrived",
        60_000,
      );
      const events = await runEvents(server.url, ws, runId);
      expect(events.filter((e: any) => e.type === "run.status").map((e: any) => e.verb_phrase)).toEqual(
        [0, 1, 2, 3, 4].map((i) => `Running step ${i}…`),
      );
      expect(events.map((e: any) => e.type).slice(-2)).toEqual(["message.posted", "run.finished"]);
      const all = await readEvents(server, ws);
      expect(new Set(all.map((e: any) => e.id)).size).toBe(all.length);
    } finally {
      await proxy.close();
    }
  });
});
