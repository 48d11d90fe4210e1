import { EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCli } from "../cli/main";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { startAgUiAgent, type AgUiAgent } from "./support/ag-ui-agent";
import { answer } from "./support/asks";
import { until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

/**
 * `chips bridge ag-ui` (the CLI) against an AG-UI agent over HTTP built with the real
 * `@ag-ui/core` events and encoder: a run that ends with interrupts (RUN_FINISHED's
 * `interrupt` outcome) is asked in the room, and the person's answers resume the agent
 * (`RunAgentInput.resume`). Only the agent's choices are scripted.
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
});
afterAll(() => server?.close());

const ids = (input: RunAgentInput) => ({ threadId: input.threadId, runId: input.runId });

/** First run: a tool call and an approval interrupt on it, plus a question; then whatever `after` makes of the resume. */
function agentAsking(after: (resume: RunAgentInput["resume"]) => string): Promise<AgUiAgent> {
  return startAgUiAgent(async function* (input, index) {
    yield { type: EventType.RUN_STARTED, ...ids(input) } as BaseEvent;
    if (index === 0) {
      yield { type: EventType.TOOL_CALL_START, toolCallId: "tc1", toolCallName: "delete_rows" } as BaseEvent;
      yield {
        type: EventType.TOOL_CALL_ARGS,
        toolCallId: "tc1",
        delta: '{"table":"orders","ids":[1,2,3]}',
      } as BaseEvent;
      yield { type: EventType.TOOL_CALL_END, toolCallId: "tc1" } as BaseEvent;
      yield {
        type: EventType.RUN_FINISHED,
        ...ids(input),
        outcome: {
          type: "interrupt",
          interrupts: [
            { id: "int-approve", reason: "tool_approval", message: "Delete 3 orders?", toolCallId: "tc1" },
            {
              id: "int-region",
              reason: "input_required",
              message: "Which region?",
              responseSchema: { type: "string", enum: ["eu-west", "us-east"] },
            },
          ],
        },
      } as BaseEvent;
      return;
    }
    const text = after(input.resume);
    yield { type: EventType.TEXT_MESSAGE_START, messageId: `m${index}`, role: "assistant" } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `m${index}`, delta: text } as BaseEvent;
    yield { type: EventType.TEXT_MESSAGE_END, messageId: `m${index}` } as BaseEvent;
    yield { type: EventType.RUN_FINISHED, ...ids(input) } as BaseEvent;
  });
}

function bridge(agent: AgUiAgent, prompt: string): Promise<{ code: number; out: string }> {
  let out = "";
  return runCli(["bridge", "ag-ui", agent.url, "--prompt", prompt], {
    env: { CHIPS_URL: server.url, CHIPS_TOKEN: ws.token, CHIPS_DATA_DIR: "/nonexistent-chips-dir" },
    io: { out: (s) => void (out += s), err: (s) => void (out += s) },
  }).then((code) => ({ code, out }));
}

async function runOf(goal: string): Promise<string> {
  let id = "";
  await until(async () => {
    const started = (await readEvents(server, ws)).find((e: any) => e.type === "run.started" && e.goal === goal);
    id = started?.run_id ?? "";
    return !!id;
  }, `the bridged run "${goal}"`);
  return id;
}

async function asksOf(runId: string): Promise<any[]> {
  let asks: any[] = [];
  await until(async () => {
    asks = (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token: ws.person_token })).body.asks;
    return asks.length === 2;
  }, "both interrupts asked");
  return asks;
}

const person = () => ({ token: ws.person_token });

describe("[AGUI1] AG-UI interrupts are asked in the room; the answers resume the agent", () => {
  it("[AGUI1] Allow and an option: the agent resumes with {approved: true} and the option's value; each answer applied", async () => {
    const agent = await agentAsking((resume) => `RESUMED ${JSON.stringify(resume)}`);
    try {
      const done = bridge(agent, "Clean up the test orders");
      const runId = await runOf("Clean up the test orders");
      const [approve, region] = await asksOf(runId);
      expect(approve.request).toMatchObject({
        kind: "permission",
        tool: "delete_rows",
        summary: "Delete 3 orders?",
        source: "ag-ui",
        options: [
          { id: "allow", decision: "allow" },
          { id: "deny", decision: "deny" },
        ],
      });
      expect(region.request).toMatchObject({
        kind: "question",
        question: "Which region?",
        options: [
          { id: "o1", label: "eu-west" },
          { id: "o2", label: "us-east" },
        ],
      });
      expect(agent.inputs).toHaveLength(1); // nothing resumes before both are answered
      expect((await answer(server, runId, approve.ask_id, { decision: "allow" }, person())).status).toBe(201);
      expect((await answer(server, runId, region.ask_id, { option_id: "o2" }, person())).status).toBe(201);
      const { code, out } = await done;
      expect(code, out).toBe(0);
      expect(agent.inputs[1].resume).toEqual([
        { interruptId: "int-approve", status: "resolved", payload: { approved: true } },
        { interruptId: "int-region", status: "resolved", payload: "us-east" },
      ]);
      const events = (await readEvents(server, ws)).filter((e: any) => e.run_id === runId);
      expect(events.find((e: any) => e.type === "message.posted" && e.text.startsWith("RESUMED"))).toBeTruthy();
      expect(events.at(-1)).toMatchObject({ type: "run.finished", outcome: "succeeded" });
      const settled = (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token: ws.token })).body.asks;
      expect(settled.map((a: any) => a.state)).toEqual(["applied", "applied"]);
    } finally {
      await agent.close();
    }
  });

  it("[AGUI1] Deny with a note, and a cancel from the room while the question waits: the agent is never resumed, the asks close", async () => {
    const agent = await agentAsking((resume) => `RESUMED ${JSON.stringify(resume)}`);
    try {
      const done = bridge(agent, "Drop the staging orders");
      const runId = await runOf("Drop the staging orders");
      const [approve, region] = await asksOf(runId);
      await answer(server, runId, approve.ask_id, { decision: "deny", note: "not before the audit" }, person());
      const cancel = await request(`${server.url}/api/v1/runs/${runId}/commands`, {
        method: "POST",
        token: ws.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ command: "cancel", idempotency_key: `cancel-${runId}` }),
      });
      expect(cancel.status, cancel.text).toBe(201);
      const { code, out } = await done;
      expect(code, out).toBe(0);
      expect(agent.inputs).toHaveLength(1);
      const asks = (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token: ws.token })).body.asks;
      expect(asks.find((a: any) => a.ask_id === region.ask_id)).toMatchObject({
        state: "closed",
        closed_reason: "cancelled",
      });
      const events = (await readEvents(server, ws)).filter((e: any) => e.run_id === runId);
      expect(events.at(-1)).toMatchObject({ type: "run.finished", outcome: "cancelled" });
    } finally {
      await agent.close();
    }
  });

  it("[AGUI1] Deny: the agent resumes with {approved: false, note}; a typed answer where no options were offered", async () => {
    const agent = await startAgUiAgent(async function* (input, index) {
      yield { type: EventType.RUN_STARTED, ...ids(input) } as BaseEvent;
      if (index === 0) {
        yield { type: EventType.TOOL_CALL_START, toolCallId: "tc9", toolCallName: "send_email" } as BaseEvent;
        yield { type: EventType.TOOL_CALL_END, toolCallId: "tc9" } as BaseEvent;
        yield {
          type: EventType.RUN_FINISHED,
          ...ids(input),
          outcome: {
            type: "interrupt",
            interrupts: [
              { id: "i1", reason: "tool_approval", toolCallId: "tc9" },
              { id: "i2", reason: "input_required", message: "Subject line?" },
            ],
          },
        } as BaseEvent;
        return;
      }
      yield { type: EventType.RUN_FINISHED, ...ids(input) } as BaseEvent;
    });
    try {
      const done = bridge(agent, "Email the customer");
      const runId = await runOf("Email the customer");
      const [approve, subject] = await asksOf(runId);
      expect(approve.request).toMatchObject({ tool: "send_email", summary: "send_email" });
      expect(subject.request).toMatchObject({ kind: "question", question: "Subject line?", free_text: true });
      await answer(server, runId, approve.ask_id, { decision: "deny", note: "legal reviews first" }, person());
      await answer(server, runId, subject.ask_id, { text: "Your refund" }, person());
      const { code, out } = await done;
      expect(code, out).toBe(0);
      expect(agent.inputs[1].resume).toEqual([
        { interruptId: "i1", status: "resolved", payload: { approved: false, note: "legal reviews first" } },
        { interruptId: "i2", status: "resolved", payload: "Your refund" },
      ]);
    } finally {
      await agent.close();
    }
  });
});
