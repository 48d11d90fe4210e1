import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { answer } from "./support/asks";
import { callHook, connectClaude, runEvents, waitForRun, type Connected } from "./support/claude-connect";
import { until } from "./support/feed";
import { tcpProxy } from "./support/proxies";
import { startTestServer, type TestServer } from "./support/server";

/**
 * Permission prompts of a person's own Claude Code asked in the room ([CON3]–[CON6]), without
 * Claude: the installed hook, ask.mjs and the drainer (real processes), called with the stdin
 * Claude Code 2.1.141 sends (measured: PermissionRequest has no tool_use_id; the transcript
 * holds the call's tool_use, then its tool_result). The room answers through the real API;
 * test/connect-claude-asks-cli.pg.test.ts runs the CLI itself.
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
const sid = () => `7a3ebd29-7905-406b-b1e5-${String(++n).padStart(12, "0")}`;
const PRINT = { CLAUDE_CODE_ENTRYPOINT: "sdk-cli" };

async function asksOf(runId: string): Promise<any[]> {
  return (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token: ws.person_token })).body.asks;
}
async function waitingAsk(runId: string, nth = 1): Promise<any> {
  let found: any = null;
  await until(async () => {
    const asks = await asksOf(runId);
    found = asks.length >= nth && ["asked", "shown"].includes(asks[nth - 1].state) ? asks[nth - 1] : null;
    return !!found;
  }, `ask #${nth} waiting for a person`);
  return found;
}
const answerAs = async (runId: string, askId: string, body: Record<string, unknown>) => {
  const r = await answer(server, runId, askId, body, { token: ws.person_token });
  expect(r.status, r.text).toBe(201);
};
const settled = (runId: string, state: string) =>
  until(async () => (await asksOf(runId)).every((a) => a.state === state), `every ask ${state}`);

/** A turn going: the prompt's run, and the transcript Claude Code writes (the call's tool_use in it). */
async function turn(prompt: string, call?: { tool: string; input: Record<string, unknown> }) {
  const s = sid();
  const transcript = path.join(c!.project, `${s}.jsonl`);
  fs.writeFileSync(transcript, JSON.stringify({ type: "user", message: { role: "user", content: prompt } }) + "\n");
  await callHook(c!, "UserPromptSubmit", { session_id: s, prompt, transcript_path: transcript });
  const runId = await waitForRun(server.url, ws, prompt);
  const id = `toolu_${++n}`;
  if (call)
    fs.appendFileSync(
      transcript,
      JSON.stringify({
        type: "assistant",
        message: { role: "assistant", content: [{ type: "tool_use", id, name: call.tool, input: call.input }] },
      }) + "\n",
    );
  return { s, runId, transcript, id };
}

/** What Claude Code 2.1.141 sends a PermissionRequest hook (no tool_use_id). */
const permissionRequest = (s: string, transcript: string, tool: string, input: Record<string, unknown>) => ({
  session_id: s,
  transcript_path: transcript,
  cwd: c!.project,
  permission_mode: "default",
  tool_name: tool,
  tool_input: input,
  permission_suggestions: [],
});

describe("[CON3] the terminal's permission prompt is asked in the room; the first answer wins", () => {
  it("[CON3] Allow in the room: the hook allows it (PermissionRequest decision), then applied; Deny with a note: the model reads the note", async () => {
    c = await connectClaude(server.url, ws);
    const bash = { command: "echo made > made.txt" };
    const t = await turn("Allow it", { tool: "Bash", input: bash });
    const hook = callHook(c, "PermissionRequest", permissionRequest(t.s, t.transcript, "Bash", bash));
    const ask = await waitingAsk(t.runId);
    expect(ask.request).toMatchObject({
      kind: "permission",
      tool: "Bash",
      summary: "echo made > made.txt",
      command: "echo made > made.txt",
      scope: "Bash",
      source: "claude-hook",
    });
    await answerAs(t.runId, ask.ask_id, { decision: "allow" });
    expect((await hook).json).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    await settled(t.runId, "applied");

    const denied = callHook(
      c,
      "PermissionRequest",
      permissionRequest(t.s, t.transcript, "Bash", { command: "rm -rf /" }),
    );
    const no = await waitingAsk(t.runId, 2);
    await answerAs(t.runId, no.ask_id, { decision: "deny", note: "never that" });
    expect((await denied).json).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "A person in the Chips room denied this tool call: never that" },
      },
    });
    await settled(t.runId, "applied");
  });

  it("[CON3] Allow for this run: the tool is allowed for the rest of the turn without asking again, and not in the next turn", async () => {
    c = await connectClaude(server.url, ws);
    const t = await turn("Widen it", { tool: "Bash", input: { command: "echo one" } });
    const hook = callHook(
      c,
      "PermissionRequest",
      permissionRequest(t.s, t.transcript, "Bash", { command: "echo one" }),
    );
    const ask = await waitingAsk(t.runId);
    await answerAs(t.runId, ask.ask_id, { decision: "allow_for_run" });
    expect((await hook).json.hookSpecificOutput.decision).toEqual({ behavior: "allow" });
    const again = await callHook(
      c,
      "PermissionRequest",
      permissionRequest(t.s, t.transcript, "Bash", { command: "echo two" }),
    );
    expect(again.json.hookSpecificOutput.decision).toEqual({ behavior: "allow" });
    expect(await asksOf(t.runId)).toHaveLength(1);
    await callHook(c, "Stop", { session_id: t.s, stop_hook_active: false, last_assistant_message: "ok" });
    // A new turn is a new run: asked again.
    await callHook(c, "UserPromptSubmit", { session_id: t.s, prompt: "Next turn", transcript_path: t.transcript });
    const next = await waitForRun(server.url, ws, "Next turn");
    const asked = callHook(
      c,
      "PermissionRequest",
      permissionRequest(t.s, t.transcript, "Bash", { command: "echo three" }),
    );
    const second = await waitingAsk(next);
    await answerAs(next, second.ask_id, { decision: "deny" });
    expect((await asked).json.hookSpecificOutput.decision.behavior).toBe("deny");
  });

  it("[CON3] answered at the terminal first: the hook leaves, the ask closes answered elsewhere; a room answer after that is refused", async () => {
    c = await connectClaude(server.url, ws);
    const bash = { command: "npm publish" };
    const t = await turn("Race it", { tool: "Bash", input: bash });
    const hook = callHook(c, "PermissionRequest", permissionRequest(t.s, t.transcript, "Bash", bash));
    const ask = await waitingAsk(t.runId);
    // The person pressed "No" in the terminal: Claude Code writes the call's result.
    fs.appendFileSync(
      t.transcript,
      JSON.stringify({
        type: "user",
        message: {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: t.id,
              is_error: true,
              content: "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            },
          ],
        },
      }) + "\n",
    );
    expect((await hook).json).toBeNull();
    await until(async () => (await asksOf(t.runId))[0].state === "closed", "the ask closed");
    expect((await asksOf(t.runId))[0]).toMatchObject({
      closed_reason: "answered_elsewhere",
      reason: "answered No at the terminal",
    });
    const late = await answer(server, t.runId, ask.ask_id, { decision: "allow" }, { token: ws.person_token });
    expect(late.status).toBe(409);
  });

  it("[CON3] Allow at the terminal and the turn over before the hook looks again: the call's PostToolUse says so first, so the ask closes answered elsewhere, not with the run", async () => {
    c = await connectClaude(server.url, ws);
    const bash = { command: "npm version patch" };
    const t = await turn("Outrun it", { tool: "Bash", input: bash });
    const hook = callHook(c, "PermissionRequest", permissionRequest(t.s, t.transcript, "Bash", bash));
    await waitingAsk(t.runId);
    // The call ran and the turn ended; the transcript (where the hook looks) says nothing yet.
    await callHook(c, "PostToolUse", {
      session_id: t.s,
      tool_name: "Bash",
      tool_input: bash,
      tool_use_id: t.id,
      tool_response: { stdout: "v1.0.1" },
    });
    await callHook(c, "Stop", { session_id: t.s, last_assistant_message: "Bumped.", transcript_path: t.transcript });
    expect((await hook).json).toBeNull();
    await until(async () => (await runEvents(server.url, ws, t.runId, "run.finished")).length === 1, "the turn's end");
    expect((await asksOf(t.runId))[0]).toMatchObject({
      state: "closed",
      closed_reason: "answered_elsewhere",
      reason: "answered Allow at the terminal",
    });
  });
});

describe("[CON4] a hook never hangs the terminal", () => {
  it("[CON4] no answer within --ask-seconds: the hook steps aside (the terminal's dialog stays) and the ask closes expired", async () => {
    c = await connectClaude(server.url, ws, ["--ask-seconds", "2"]);
    const t = await turn("Nobody answers", { tool: "Bash", input: { command: "make" } });
    const t0 = Date.now();
    const a = await callHook(c, "PermissionRequest", permissionRequest(t.s, t.transcript, "Bash", { command: "make" }));
    expect(a.json).toBeNull();
    expect(Date.now() - t0).toBeLessThan(15_000);
    await until(async () => (await asksOf(t.runId))[0]?.state === "closed", "the ask closed");
    expect((await asksOf(t.runId))[0]).toMatchObject({
      closed_reason: "expired",
      reason: "no answer in 2 s: the terminal's own prompt took over",
    });
  });

  it("[CON4] Chips unreachable: the hook steps aside at once and nothing is asked; the turn's events arrive when Chips is back", async () => {
    const proxy = await tcpProxy(server.url);
    try {
      c = await connectClaude(proxy.url, ws);
      const t = await turn("While Chips is away", { tool: "Bash", input: { command: "make" } });
      proxy.cut();
      // The drainer finds Chips gone on its next send: the hook's own record is one.
      await callHook(c, "PreToolUse", { session_id: t.s, tool_name: "Read", tool_input: { file_path: "a" } });
      await until(() => fs.existsSync(path.join(c!.root, "chips-down")), "the drainer knows Chips is away");
      const t0 = Date.now();
      const a = await callHook(
        c,
        "PermissionRequest",
        permissionRequest(t.s, t.transcript, "Bash", { command: "make" }),
      );
      expect(a.json).toBeNull();
      expect(Date.now() - t0, "at once").toBeLessThan(5_000);
      await callHook(c, "Stop", { session_id: t.s, stop_hook_active: false, last_assistant_message: "done" });
      proxy.restore();
      await until(
        async () => (await runEvents(server.url, ws, t.runId, "run.finished")).length === 1,
        "the rest arrived",
        60_000,
      );
      expect(await asksOf(t.runId)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("[CON4] claude exits while the hook waits: the hook leaves too, and the ask closes", async () => {
    c = await connectClaude(server.url, ws);
    const t = await turn("Then quit", { tool: "Bash", input: { command: "make" } });
    // A stand-in for `claude`: it starts the hook and exits while the hook waits.
    const input = JSON.stringify(permissionRequest(t.s, t.transcript, "Bash", { command: "make" }));
    const claude = spawn(
      process.execPath,
      [
        "-e",
        `const p=require("child_process").spawn("/bin/sh",[process.argv[1],"PermissionRequest"],{stdio:["pipe","ignore","ignore"],detached:true});p.stdin.end(process.argv[2]);process.stdout.write(String(p.pid));setTimeout(()=>{},60000)`,
        path.join(c.root, "hook.sh"),
        input,
      ],
      { cwd: c.project, env: { ...process.env, CLAUDE_CODE_ENTRYPOINT: "cli" }, stdio: ["ignore", "pipe", "ignore"] },
    );
    let hookPid = 0;
    claude.stdout.on("data", (d) => (hookPid = Number(String(d))));
    await waitingAsk(t.runId);
    claude.kill("SIGKILL");
    await until(() => {
      try {
        process.kill(hookPid, 0);
        return false;
      } catch {
        return true;
      }
    }, "the hook gone with its claude");
    await until(async () => (await asksOf(t.runId))[0]?.state === "closed", "the ask closed");
    expect((await asksOf(t.runId))[0]).toMatchObject({
      closed_reason: "cancelled",
      reason: "the Claude Code session ended",
    });
  });
});

describe("[CON5] claude -p: what its own rules would refuse is asked in the room", () => {
  it("[CON5] a call -p would refuse is asked (PreToolUse allow / deny); a read-only command and an allowlisted one are not; AskUserQuestion gets the room's answer", async () => {
    c = await connectClaude(server.url, ws, [], '{"permissions":{"allow":["Bash(npm test:*)"]}}');
    const t = await turn("Print mode");
    const pre = (tool: string, input: Record<string, unknown>) => ({
      session_id: t.s,
      cwd: c!.project,
      permission_mode: "default",
      tool_name: tool,
      tool_input: input,
      tool_use_id: `toolu_${++n}`,
    });
    expect((await callHook(c, "PreToolUse", pre("Bash", { command: "ls -la" }), PRINT)).json).toBeNull();
    expect((await callHook(c, "PreToolUse", pre("Bash", { command: "npm test -- a" }), PRINT)).json).toBeNull();
    expect(await asksOf(t.runId)).toEqual([]);

    const write = callHook(c, "PreToolUse", pre("Bash", { command: "echo hi > created.txt" }), PRINT);
    const ask = await waitingAsk(t.runId);
    await answerAs(t.runId, ask.ask_id, { decision: "allow" });
    expect((await write).json).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: "Allowed in the Chips room",
      },
    });

    const question = {
      questions: [
        {
          question: "Which color should the button be?",
          header: "Color",
          options: [
            { label: "Red", description: "warm" },
            { label: "Blue", description: "cool" },
          ],
          multiSelect: false,
        },
      ],
    };
    const q = callHook(c, "PreToolUse", pre("AskUserQuestion", question), PRINT);
    const qa = await waitingAsk(t.runId, 2);
    expect(qa.request).toMatchObject({
      kind: "question",
      question: "Which color should the button be?",
      free_text: true,
    });
    await answerAs(t.runId, qa.ask_id, { option_id: "o2" });
    expect((await q).json.hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "Answered in the Chips room",
      updatedInput: { ...question, answers: { "Which color should the button be?": "Blue" } },
    });
    await settled(t.runId, "applied");
  });
});

describe("[CON6] Claude Code waiting for its person shows in the room", () => {
  it("[CON6] a notification during a turn is asked as a notice, closed when the session goes on; idle after the turn is said in the room", async () => {
    c = await connectClaude(server.url, ws);
    const t = await turn("Notify me");
    await callHook(c, "Notification", {
      session_id: t.s,
      message: "Claude needs your attention",
      notification_type: "elicitation_dialog",
    });
    const notice = await waitingAsk(t.runId);
    expect(notice.request).toMatchObject({
      kind: "question",
      question: "Claude Code needs you at the terminal: Claude needs your attention",
      source: "claude-notification",
    });
    await callHook(c, "PreToolUse", { session_id: t.s, tool_name: "Read", tool_input: { file_path: "a" } });
    await until(async () => (await asksOf(t.runId))[0].state === "closed", "the notice closed");
    expect((await asksOf(t.runId))[0].closed_reason).toBe("answered_elsewhere");
    await callHook(c, "Stop", { session_id: t.s, stop_hook_active: false, last_assistant_message: "ok" });
    await callHook(c, "Notification", {
      session_id: t.s,
      message: "Claude is waiting for your input",
      notification_type: "idle_prompt",
    });
    await until(async () => {
      const all = await readEvents(server, ws);
      return all.some(
        (e: any) =>
          e.type === "message.posted" &&
          e.text === `Claude Code is waiting for your input in the terminal (session ${t.s}).`,
      );
    }, "the idle notice in the room");
  });
});
