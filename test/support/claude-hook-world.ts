import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { newWorkspace, request, type Workspace } from "./api";
import { answer } from "./asks";
import { callHook, waitForRun, type Connected } from "./claude-connect";
import { until } from "./feed";
import { startTestServer, type TestServer } from "./server";

/** The environment of a `claude -p` hook: Claude Code says it runs as the SDK's CLI. */
export const PRINT = { CLAUDE_CODE_ENTRYPOINT: "sdk-cli" };

/**
 * What the tests of a person's Claude Code asking in the room share ([CON3]–[CON6]): one
 * server and workspace for the file, the test's connection (`w.c`, closed after each test),
 * and the calls that play Claude Code's side — a turn with its transcript, a hook's stdin —
 * and the room's — the asks of a run, an answer. Read its fields inside a test.
 */
export function claudeHookWorld() {
  const w = { c: null } as { server: TestServer; ws: Workspace; c: Connected | null };
  beforeAll(async () => {
    w.server = await startTestServer({ rateLimit: 0 });
    w.ws = await newWorkspace(w.server);
  });
  afterAll(() => w.server?.close());
  afterEach(async () => {
    await w.c?.close();
    w.c = null;
  });

  let n = 0;
  const sid = () => `7a3ebd29-7905-406b-b1e5-${String(++n).padStart(12, "0")}`;
  const asksOf = async (runId: string): Promise<any[]> =>
    (await request(`${w.server.url}/api/v1/runs/${runId}/asks`, { token: w.ws.person_token })).body.asks;

  return Object.assign(w, {
    sid,
    /** A fresh tool_use id. */
    toolUseId: () => `toolu_${++n}`,
    asksOf,
    /** The run's `nth` ask, once it waits for a person. */
    async waitingAsk(runId: string, nth = 1): Promise<any> {
      let found: any = null;
      await until(async () => {
        const asks = await asksOf(runId);
        found = asks.length >= nth && ["asked", "shown"].includes(asks[nth - 1].state) ? asks[nth - 1] : null;
        return !!found;
      }, `ask #${nth} waiting for a person`);
      return found;
    },
    /** The owner answers (expects 201). */
    async answerAs(runId: string, askId: string, body: Record<string, unknown>) {
      const r = await answer(w.server, runId, askId, body, { token: w.ws.person_token });
      expect(r.status, r.text).toBe(201);
    },
    settled: (runId: string, state: string) =>
      until(async () => (await asksOf(runId)).every((a) => a.state === state), `every ask ${state}`),
    /** A turn going: the prompt's run, and the transcript Claude Code writes (the call's tool_use in it). */
    async turn(prompt: string, call?: { tool: string; input: Record<string, unknown> }) {
      const c = w.c!;
      const s = sid();
      const transcript = path.join(c.project, `${s}.jsonl`);
      fs.writeFileSync(transcript, JSON.stringify({ type: "user", message: { role: "user", content: prompt } }) + "\n");
      await callHook(c, "UserPromptSubmit", { session_id: s, prompt, transcript_path: transcript });
      const runId = await waitForRun(w.server.url, w.ws, prompt);
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
    },
    /** What Claude Code 2.1.141 sends a PermissionRequest hook (no tool_use_id). */
    permissionRequest: (s: string, transcript: string, tool: string, input: Record<string, unknown>) => ({
      session_id: s,
      transcript_path: transcript,
      cwd: w.c!.project,
      permission_mode: "default",
      tool_name: tool,
      tool_input: input,
      permission_suggestions: [],
    }),
  });
}
