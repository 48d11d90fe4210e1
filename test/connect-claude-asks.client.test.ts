import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { answer } from "./support/asks";
import { callHook, connectClaude, runEvents, waitForRun } from "./support/claude-connect";
import { until } from "./support/feed";
import { claudeHookWorld } from "./support/claude-hook-world";

/**
 * Permission prompts of a person's own Claude Code asked in the room and answered there ([CON3]), without
 * Claude: the installed hook, ask.mjs and the drainer (real processes), called with the stdin
 * Claude Code 2.1.141 sends (measured: PermissionRequest has no tool_use_id; the transcript
 * holds the call's tool_use, then its tool_result). The room answers through the real API;
 * test/connect-claude-asks-cli.pg.test.ts runs the CLI itself.
 */
const w = claudeHookWorld();

describe("[CON3] the terminal's permission prompt is asked in the room; the first answer wins", () => {
  it("[CON3] Allow in the room: the hook allows it (PermissionRequest decision), then applied; Deny with a note: the model reads the note", async () => {
    w.c = await connectClaude(w.server.url, w.ws);
    const bash = { command: "echo made > made.txt" };
    const t = await w.turn("Allow it", { tool: "Bash", input: bash });
    const hook = callHook(w.c, "PermissionRequest", w.permissionRequest(t.s, t.transcript, "Bash", bash));
    const ask = await w.waitingAsk(t.runId);
    expect(ask.request).toMatchObject({
      kind: "permission",
      tool: "Bash",
      summary: "echo made > made.txt",
      command: "echo made > made.txt",
      scope: "Bash",
      source: "claude-hook",
    });
    await w.answerAs(t.runId, ask.ask_id, { decision: "allow" });
    expect((await hook).json).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    await w.settled(t.runId, "applied");

    const denied = callHook(
      w.c,
      "PermissionRequest",
      w.permissionRequest(t.s, t.transcript, "Bash", { command: "rm -rf /" }),
    );
    const no = await w.waitingAsk(t.runId, 2);
    await w.answerAs(t.runId, no.ask_id, { decision: "deny", note: "never that" });
    expect((await denied).json).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "A person in the Chips room denied this tool call: never that" },
      },
    });
    await w.settled(t.runId, "applied");
  });

  it("[CON3] Allow for this run: the tool is allowed for the rest of the turn without asking again, and not in the next turn", async () => {
    w.c = await connectClaude(w.server.url, w.ws);
    const t = await w.turn("Widen it", { tool: "Bash", input: { command: "echo one" } });
    const hook = callHook(
      w.c,
      "PermissionRequest",
      w.permissionRequest(t.s, t.transcript, "Bash", { command: "echo one" }),
    );
    const ask = await w.waitingAsk(t.runId);
    await w.answerAs(t.runId, ask.ask_id, { decision: "allow_for_run" });
    expect((await hook).json.hookSpecificOutput.decision).toEqual({ behavior: "allow" });
    const again = await callHook(
      w.c,
      "PermissionRequest",
      w.permissionRequest(t.s, t.transcript, "Bash", { command: "echo two" }),
    );
    expect(again.json.hookSpecificOutput.decision).toEqual({ behavior: "allow" });
    expect(await w.asksOf(t.runId)).toHaveLength(1);
    await callHook(w.c, "Stop", { session_id: t.s, stop_hook_active: false, last_assistant_message: "ok" });
    // A new turn is a new run: asked again.
    await callHook(w.c, "UserPromptSubmit", { session_id: t.s, prompt: "Next turn", transcript_path: t.transcript });
    const next = await waitForRun(w.server.url, w.ws, "Next turn");
    const asked = callHook(
      w.c,
      "PermissionRequest",
      w.permissionRequest(t.s, t.transcript, "Bash", { command: "echo three" }),
    );
    const second = await w.waitingAsk(next);
    await w.answerAs(next, second.ask_id, { decision: "deny" });
    expect((await asked).json.hookSpecificOutput.decision.behavior).toBe("deny");
  });

  it("[CON3] answered at the terminal first: the hook leaves, the ask closes answered elsewhere; a room answer after that is refused", async () => {
    w.c = await connectClaude(w.server.url, w.ws);
    const bash = { command: "npm publish" };
    const t = await w.turn("Race it", { tool: "Bash", input: bash });
    const hook = callHook(w.c, "PermissionRequest", w.permissionRequest(t.s, t.transcript, "Bash", bash));
    const ask = await w.waitingAsk(t.runId);
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
    await until(async () => (await w.asksOf(t.runId))[0].state === "closed", "the ask closed");
    expect((await w.asksOf(t.runId))[0]).toMatchObject({
      closed_reason: "answered_elsewhere",
      reason: "answered No at the terminal",
    });
    const late = await answer(w.server, t.runId, ask.ask_id, { decision: "allow" }, { token: w.ws.person_token });
    expect(late.status).toBe(409);
  });

  it("[CON3] Allow at the terminal and the turn over before the hook looks again: the call's PostToolUse says so first, so the ask closes answered elsewhere, not with the run", async () => {
    w.c = await connectClaude(w.server.url, w.ws);
    const bash = { command: "npm version patch" };
    const t = await w.turn("Outrun it", { tool: "Bash", input: bash });
    const hook = callHook(w.c, "PermissionRequest", w.permissionRequest(t.s, t.transcript, "Bash", bash));
    await w.waitingAsk(t.runId);
    // The call ran and the turn ended; the transcript (where the hook looks) says nothing yet.
    await callHook(w.c, "PostToolUse", {
      session_id: t.s,
      tool_name: "Bash",
      tool_input: bash,
      tool_use_id: t.id,
      tool_response: { stdout: "v1.0.1" },
    });
    await callHook(w.c, "Stop", { session_id: t.s, last_assistant_message: "Bumped.", transcript_path: t.transcript });
    expect((await hook).json).toBeNull();
    await until(
      async () => (await runEvents(w.server.url, w.ws, t.runId, "run.finished")).length === 1,
      "the turn's end",
    );
    expect((await w.asksOf(t.runId))[0]).toMatchObject({
      state: "closed",
      closed_reason: "answered_elsewhere",
      reason: "answered Allow at the terminal",
    });
  });
});
