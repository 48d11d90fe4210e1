import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readEvents } from "./support/api";
import { callHook, connectClaude, runEvents } from "./support/claude-connect";
import { until } from "./support/feed";
import { tcpProxy } from "./support/proxies";
import { PRINT, claudeHookWorld } from "./support/claude-hook-world";

/**
 * A person's own Claude Code asking in the room at the edges ([CON4]–[CON6]): no answer, Chips
 * unreachable, claude gone, `claude -p`'s own rules, a notification — without
 * Claude: the installed hook, ask.mjs and the drainer (real processes), called with the stdin
 * Claude Code 2.1.141 sends (measured: PermissionRequest has no tool_use_id; the transcript
 * holds the call's tool_use, then its tool_result). The room answers through the real API;
 * test/connect-claude-asks-cli.pg.test.ts runs the CLI itself.
 */
const w = claudeHookWorld();

describe("[CON4] a hook never hangs the terminal", () => {
  it("[CON4] [ASK8] no answer within --ask-seconds: the hook steps aside (the terminal's dialog stays) and the ask closes expired, left to the terminal", async () => {
    w.c = await connectClaude(w.server.url, w.ws, ["--ask-seconds", "2"]);
    const t = await w.turn("Nobody answers", { tool: "Bash", input: { command: "make" } });
    const t0 = Date.now();
    const a = await callHook(
      w.c,
      "PermissionRequest",
      w.permissionRequest(t.s, t.transcript, "Bash", { command: "make" }),
    );
    expect(a.json).toBeNull();
    expect(Date.now() - t0).toBeLessThan(15_000);
    await until(async () => (await w.asksOf(t.runId))[0]?.state === "closed", "the ask closed");
    expect((await w.asksOf(t.runId))[0]).toMatchObject({
      request: { if_unanswered: "ask_in_terminal" },
      closed_reason: "expired",
      applied_default: null,
      reason: "no answer in 2 s: the terminal's own prompt took over",
    });
  });

  it("[ASK8] under -p nobody answers: the ask said deny, and its close says deny applied", async () => {
    w.c = await connectClaude(w.server.url, w.ws, ["--ask-seconds", "2"]);
    const t = await w.turn("Nobody answers under -p");
    const call = {
      session_id: t.s,
      cwd: w.c.project,
      permission_mode: "default",
      tool_name: "Bash",
      tool_input: { command: "echo hi > unanswered.txt" },
      tool_use_id: w.toolUseId(),
    };
    expect((await callHook(w.c, "PreToolUse", call, PRINT)).json).toBeNull();
    await until(async () => (await w.asksOf(t.runId))[0]?.state === "closed", "the ask closed");
    expect((await w.asksOf(t.runId))[0]).toMatchObject({
      request: { if_unanswered: "deny" },
      closed_reason: "expired",
      applied_default: "deny",
      reason: "no answer in 2 s: Claude Code's own permission rules decided",
    });
  });

  it("[CON4] Chips unreachable: the hook steps aside at once and nothing is asked; the turn's events arrive when Chips is back", async () => {
    const proxy = await tcpProxy(w.server.url);
    try {
      w.c = await connectClaude(proxy.url, w.ws);
      const t = await w.turn("While Chips is away", { tool: "Bash", input: { command: "make" } });
      proxy.cut();
      // The drainer finds Chips gone on its next send: the hook's own record is one.
      await callHook(w.c, "PreToolUse", { session_id: t.s, tool_name: "Read", tool_input: { file_path: "a" } });
      await until(() => fs.existsSync(path.join(w.c!.root, "chips-down")), "the drainer knows Chips is away");
      const t0 = Date.now();
      const a = await callHook(
        w.c,
        "PermissionRequest",
        w.permissionRequest(t.s, t.transcript, "Bash", { command: "make" }),
      );
      expect(a.json).toBeNull();
      expect(Date.now() - t0, "at once").toBeLessThan(5_000);
      await callHook(w.c, "Stop", { session_id: t.s, stop_hook_active: false, last_assistant_message: "done" });
      proxy.restore();
      await until(
        async () => (await runEvents(w.server.url, w.ws, t.runId, "run.finished")).length === 1,
        "the rest arrived",
        60_000,
      );
      expect(await w.asksOf(t.runId)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("[CON4] claude exits while the hook waits: the hook leaves too, and the ask closes", async () => {
    w.c = await connectClaude(w.server.url, w.ws);
    const t = await w.turn("Then quit", { tool: "Bash", input: { command: "make" } });
    // A stand-in for `claude`: it starts the hook and exits while the hook waits.
    const input = JSON.stringify(w.permissionRequest(t.s, t.transcript, "Bash", { command: "make" }));
    const claude = spawn(
      process.execPath,
      [
        "-e",
        `const p=require("child_process").spawn("/bin/sh",[process.argv[1],"PermissionRequest"],{stdio:["pipe","ignore","ignore"],detached:true});p.stdin.end(process.argv[2]);process.stdout.write(String(p.pid));setTimeout(()=>{},60000)`,
        path.join(w.c.root, "hook.sh"),
        input,
      ],
      { cwd: w.c.project, env: { ...process.env, CLAUDE_CODE_ENTRYPOINT: "cli" }, stdio: ["ignore", "pipe", "ignore"] },
    );
    let hookPid = 0;
    claude.stdout.on("data", (d) => (hookPid = Number(String(d))));
    await w.waitingAsk(t.runId);
    claude.kill("SIGKILL");
    await until(() => {
      try {
        process.kill(hookPid, 0);
        return false;
      } catch {
        return true;
      }
    }, "the hook gone with its claude");
    await until(async () => (await w.asksOf(t.runId))[0]?.state === "closed", "the ask closed");
    expect((await w.asksOf(t.runId))[0]).toMatchObject({
      closed_reason: "cancelled",
      reason: "the Claude Code session ended",
    });
  });
});

describe("[CON5] claude -p: what its own rules would refuse is asked in the room", () => {
  it("[CON5] a call -p would refuse is asked (PreToolUse allow / deny); a read-only command and an allowlisted one are not; AskUserQuestion gets the room's answer", async () => {
    w.c = await connectClaude(w.server.url, w.ws, [], '{"permissions":{"allow":["Bash(npm test:*)"]}}');
    const t = await w.turn("Print mode");
    const pre = (tool: string, input: Record<string, unknown>) => ({
      session_id: t.s,
      cwd: w.c!.project,
      permission_mode: "default",
      tool_name: tool,
      tool_input: input,
      tool_use_id: w.toolUseId(),
    });
    expect((await callHook(w.c, "PreToolUse", pre("Bash", { command: "ls -la" }), PRINT)).json).toBeNull();
    expect((await callHook(w.c, "PreToolUse", pre("Bash", { command: "npm test -- a" }), PRINT)).json).toBeNull();
    expect(await w.asksOf(t.runId)).toEqual([]);

    const write = callHook(w.c, "PreToolUse", pre("Bash", { command: "echo hi > created.txt" }), PRINT);
    const ask = await w.waitingAsk(t.runId);
    await w.answerAs(t.runId, ask.ask_id, { decision: "allow" });
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
    const q = callHook(w.c, "PreToolUse", pre("AskUserQuestion", question), PRINT);
    const qa = await w.waitingAsk(t.runId, 2);
    expect(qa.request).toMatchObject({
      kind: "question",
      question: "Which color should the button be?",
      free_text: true,
    });
    await w.answerAs(t.runId, qa.ask_id, { option_id: "o2" });
    expect((await q).json.hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "Answered in the Chips room",
      updatedInput: { ...question, answers: { "Which color should the button be?": "Blue" } },
    });
    await w.settled(t.runId, "applied");
  });
});

describe("[CON6] Claude Code waiting for its person shows in the room", () => {
  it("[CON6] a notification during a turn is asked as a notice, closed when the session goes on; idle after the turn is said in the room", async () => {
    w.c = await connectClaude(w.server.url, w.ws);
    const t = await w.turn("Notify me");
    await callHook(w.c, "Notification", {
      session_id: t.s,
      message: "Claude needs your attention",
      notification_type: "elicitation_dialog",
    });
    const notice = await w.waitingAsk(t.runId);
    expect(notice.request).toMatchObject({
      kind: "question",
      question: "Claude Code needs you at the terminal: Claude needs your attention",
      source: "claude-notification",
    });
    await callHook(w.c, "PreToolUse", { session_id: t.s, tool_name: "Read", tool_input: { file_path: "a" } });
    await until(async () => (await w.asksOf(t.runId))[0].state === "closed", "the notice closed");
    expect((await w.asksOf(t.runId))[0].closed_reason).toBe("answered_elsewhere");
    await callHook(w.c, "Stop", { session_id: t.s, stop_hook_active: false, last_assistant_message: "ok" });
    await callHook(w.c, "Notification", {
      session_id: t.s,
      message: "Claude is waiting for your input",
      notification_type: "idle_prompt",
    });
    await until(async () => {
      const all = await readEvents(w.server, w.ws);
      return all.some(
        (e: any) =>
          e.type === "message.posted" &&
          e.text === `Claude Code is waiting for your input in the terminal (session ${t.s}).`,
      );
    }, "the idle notice in the room");
  });
});
