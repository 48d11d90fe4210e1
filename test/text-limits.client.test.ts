import { EventType, type BaseEvent } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCli } from "../cli/main";
import { LIMITS } from "../lib/core/protocol";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { startAgUiAgent } from "./support/ag-ui-agent";
import { callHook, connectClaude } from "./support/claude-connect";
import { until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [LIM1] The producers a person runs on their own machine, against a real server: `chips
 * connect claude` (its real hook script and drainer) and `chips bridge ag-ui` (the CLI, on a
 * real AG-UI agent over HTTP). A prompt of 3,000 Japanese characters (9,000 bytes) and a
 * step or todo of 600 (1,800 bytes) are cut on UTF-8 bytes to the goal's and the title's
 * limits, and every event that carries them is stored.
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());

const PROMPT = "日".repeat(3000);
const LONG = "語".repeat(600);
const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** `cut` is `whole` cut to `limit` bytes: within it, with the ellipsis after a prefix of `whole`. */
function expectCut(cut: string, whole: string, limit: number) {
  expect(bytes(cut)).toBeLessThanOrEqual(limit);
  expect(cut.endsWith("…")).toBe(true);
  expect(whole.startsWith(cut.slice(0, -1))).toBe(true);
}

/** The run a producer started, found by what only it has: its session_ref. */
async function runBy(sessionRef: string): Promise<any[]> {
  let events: any[] = [];
  await until(async () => {
    const all = await readEvents(server, ws);
    const runId = all.find((e) => e.type === "run.started" && e.session_ref === sessionRef)?.run_id;
    events = runId ? all.filter((e) => e.run_id === runId) : [];
    return events.some((e) => e.type === "run.finished");
  }, `a finished run with session_ref ${sessionRef}`);
  return events;
}

describe("[LIM1] long non-ASCII text from the producers people run", () => {
  it("[LIM1] chips connect claude: the prompt's goal is cut to 4,000 bytes, a 600-character todo to a 500-byte title, and the whole todo batch is stored", async () => {
    const c = await connectClaude(server.url, ws);
    try {
      const s = "5e3ebd29-7905-406b-b1e5-0000000a11e1";
      const tool = (id: string, todos: unknown[]) => ({
        session_id: s,
        tool_name: "TodoWrite",
        tool_input: { todos },
        tool_use_id: id,
      });
      await callHook(c, "UserPromptSubmit", { session_id: s, prompt: PROMPT });
      const todos = [
        { content: LONG, status: "in_progress", activeForm: LONG },
        { content: "Tidy up", status: "pending", activeForm: "Tidying up" },
      ];
      await callHook(c, "PreToolUse", tool("toolu_1", todos));
      await callHook(c, "PostToolUse", { ...tool("toolu_1", todos), tool_response: { newTodos: todos } });
      await callHook(c, "Stop", { session_id: s, stop_hook_active: false, last_assistant_message: "済み" });

      const events = await runBy(s);
      expectCut(events.find((e) => e.type === "run.started").goal, PROMPT, LIMITS.goal);
      const steps = events.filter((e) => e.type === "run.step");
      expect(steps.map((e) => `${e.step_id}:${e.state}`)).toEqual(["todo-0:active", "todo-1:pending"]);
      expectCut(steps[0].title, LONG, LIMITS.title);
      const phrases = events.filter((e) => e.type === "run.status").map((e) => e.verb_phrase as string);
      expect(phrases.length).toBeGreaterThan(0);
      for (const p of phrases) expect(bytes(p)).toBeLessThanOrEqual(LIMITS.verbPhrase);
      expect(events.at(-1)).toMatchObject({ type: "run.finished", outcome: "succeeded" });
    } finally {
      await c.close();
    }
  });

  it("[LIM1] chips bridge ag-ui: the goal, a long step name and a long planned step are cut; two Japanese step names are two dots", async () => {
    const agent = await startAgUiAgent(async function* (input) {
      const ids = { threadId: input.threadId, runId: input.runId };
      yield { type: EventType.RUN_STARTED, ...ids } as BaseEvent;
      yield { type: EventType.STATE_SNAPSHOT, snapshot: { plan: [{ title: LONG, status: "completed" }] } } as BaseEvent;
      for (const stepName of [LONG, "調査", "実装"]) {
        yield { type: EventType.STEP_STARTED, stepName } as BaseEvent;
        yield { type: EventType.STEP_FINISHED, stepName } as BaseEvent;
      }
      yield { type: EventType.RUN_FINISHED, ...ids } as BaseEvent;
    });
    try {
      let out = "";
      const code = await runCli(["bridge", "ag-ui", agent.url, "--prompt", PROMPT], {
        env: { CHIPS_URL: server.url, CHIPS_TOKEN: ws.token, CHIPS_DATA_DIR: "/nonexistent-chips-dir" },
        io: { out: (s) => void (out += s), err: (s) => void (out += s) },
      });
      expect(code, out).toBe(0);
      const events = await runBy(agent.inputs[0].threadId);
      expectCut(events.find((e) => e.type === "run.started").goal, PROMPT, LIMITS.goal);
      // The agent itself was asked the whole prompt.
      expect(agent.inputs[0].messages.map((m) => m.content)).toEqual([PROMPT]);

      const titled = events.filter((e) => e.type === "run.step" && e.title !== undefined);
      expect(titled.map((e) => e.step_id)).toEqual(["todo-0", `step-${"語".repeat(41)}`, "step-調査", "step-実装"]);
      for (const e of titled) expect(bytes(e.step_id)).toBeLessThanOrEqual(LIMITS.stepId);
      expectCut(titled[0].title, LONG, LIMITS.title);
      expectCut(titled[1].title, LONG, LIMITS.title);
      const run = (await request(`${server.url}/api/v1/runs/${events[0].run_id}`, { token: ws.token })).body;
      expect(run.plan.map((p: { state: string }) => p.state)).toEqual(["done", "done", "done", "done"]);
      expect(run.outcome).toBe("succeeded");
    } finally {
      await agent.close();
    }
  });
});
