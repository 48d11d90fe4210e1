import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, request, type Workspace } from "./support/api";
import { answer } from "./support/asks";
import { callHook, connectClaude, waitForRun, type Connected } from "./support/claude-connect";
import { until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [CON7] The room's answer wakes `chips connect claude`'s waiting hook (ask.mjs) as the drainer
 * writes it, rather than at its next look: with the looks a minute apart, the answer still
 * reaches Claude Code at once. The real hook, drainer and server; the terminal's answer and
 * the deadline keep their looks (test/connect-claude-asks.client.test.ts, [CON3]–[CON4]).
 */
let server: TestServer;
let ws: Workspace;
let c: Connected;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
  c = await connectClaude(server.url, ws);
});
afterAll(async () => {
  await c?.close();
  await server?.close();
});

describe("[CON7] the room's answer wakes the hook", () => {
  it("[CON7] with the hook looking only once a minute, Allow in the room still reaches it at once", async () => {
    const sid = "7a3ebd29-7905-406b-b1e5-00000000c0e7";
    const transcript = path.join(c.project, `${sid}.jsonl`);
    fs.writeFileSync(
      transcript,
      JSON.stringify({ type: "user", message: { role: "user", content: "Wake it" } }) + "\n",
    );
    await callHook(c, "UserPromptSubmit", { session_id: sid, prompt: "Wake it", transcript_path: transcript });
    const runId = await waitForRun(server.url, ws, "Wake it");
    const bash = { command: "echo woke > woke.txt" };
    const slow = { CHIPS_ASK_POLL_MS: "60000" };
    const hook = callHook(
      c,
      "PermissionRequest",
      { session_id: sid, transcript_path: transcript, cwd: c.project, tool_name: "Bash", tool_input: bash },
      slow,
    );
    let askId = "";
    await until(async () => {
      const asks = (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token: ws.person_token })).body.asks;
      askId = asks[0]?.ask_id ?? "";
      return !!askId;
    }, "the ask");
    // The hook's first look is over (the ask was sent): its next is a minute away.
    const r = await answer(server, runId, askId, { decision: "allow" }, { token: ws.person_token });
    expect(r.status, r.text).toBe(201);
    const got = await Promise.race([
      hook,
      new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 20_000).unref()),
    ]);
    expect(got).not.toBe("still waiting");
    expect(got).toMatchObject({
      json: { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } },
    });
  });
});
