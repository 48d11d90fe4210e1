import { HttpAgent } from "@ag-ui/client";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bridgeAgUi } from "../lib/agents/bridge/ag-ui";
import { ChipsClient } from "../lib/agents/sdk";
import { startAgUiAgent, type AgUiAgent } from "./support/ag-ui-agent";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [TOOL3] The AG-UI bridge puts an agent's tool calls on the record: an agent built with the
 * real @ag-ui packages streams TOOL_CALL_START / ARGS / END / RESULT over HTTP, and the
 * bridge (the real HttpAgent client) posts each call's start — its arguments as its summary —
 * and its end with the result.
 */
let server: TestServer;
let ws: Workspace;
let agent: AgUiAgent;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
  agent = await startAgUiAgent(async function* (input) {
    const ids = { threadId: input.threadId, runId: input.runId };
    yield { type: EventType.RUN_STARTED, ...ids } as BaseEvent;
    yield { type: EventType.TOOL_CALL_START, toolCallId: "tc1", toolCallName: "search_orders" } as BaseEvent;
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId: "tc1", delta: '{"q":' } as BaseEvent;
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId: "tc1", delta: '"4471"}' } as BaseEvent;
    yield { type: EventType.TOOL_CALL_END, toolCallId: "tc1" } as BaseEvent;
    await new Promise((r) => setTimeout(r, 50)); // the tool takes a moment: the call has a time
    yield {
      type: EventType.TOOL_CALL_RESULT,
      toolCallId: "tc1",
      messageId: "r1",
      role: "tool",
      content: '{"status":"confirmed"}',
    } as BaseEvent;
    // A call whose result never comes back in this run (a front-end tool): it ends with the run.
    yield { type: EventType.TOOL_CALL_START, toolCallId: "tc2", toolCallName: "confirm_with_user" } as BaseEvent;
    yield { type: EventType.TOOL_CALL_END, toolCallId: "tc2" } as BaseEvent;
    yield { type: EventType.RUN_FINISHED, ...ids } as BaseEvent;
  });
});
afterAll(async () => {
  await agent?.close();
  await server?.close();
});

it("[TOOL3] TOOL_CALL_START/ARGS/END is a call's start with its arguments, TOOL_CALL_RESULT its end; a call with no result ends with the run", async () => {
  const client = new ChipsClient({ url: server.url, token: ws.token });
  const r = await bridgeAgUi({
    client,
    agent: new HttpAgent({ url: agent.url }),
    spaceId: ws.space_id,
    prompt: "Check PO 4471",
  });
  expect(r.outcome).toBe("succeeded");
  const events = (await readEvents(server, ws)).filter((e: any) => e.run_id === r.runId && e.type.startsWith("tool."));
  expect(events.map((e: any) => [e.type, e.call_id])).toEqual([
    ["tool.started", "tc1"],
    ["tool.finished", "tc1"],
    ["tool.started", "tc2"],
  ]);
  expect(events[0]).toMatchObject({
    tool: "search_orders",
    summary: 'search_orders {"q":"4471"}',
    input: '{"q":"4471"}',
  });
  expect(events[1]).toMatchObject({ outcome: "ok", output: '{"status":"confirmed"}' });
  // The bridge times a call between the chunks' arrivals, so a late START chunk shortens it: the
  // call has a time, not a wall-clock figure a loaded machine can hold to.
  expect(events[1].duration_ms).toBeGreaterThan(0);
  const run = (await request(`${server.url}/api/v1/runs/${r.runId}`, { token: ws.token })).body;
  expect(run.tools).toMatchObject({ count: 2, running: 0 });
  expect(run.tools.last.map((c: any) => [c.call_id, c.outcome])).toEqual([
    ["tc1", "ok"],
    ["tc2", "cancelled"],
  ]);
});
