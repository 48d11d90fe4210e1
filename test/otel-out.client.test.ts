import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { ev, newWorkspace, post, request, runStarted, type Workspace } from "./support/api";
import { decodeSpans, startReceiver, type Receiver } from "./support/otlp-receiver";
import { chipsCli } from "./support/chips-cli";
import { startTestServer, type TestServer } from "./support/server";

/**
 * OTLP out ([OTL7]): `chips export RUN --otlp URL` sends the run as GenAI spans to a local
 * receiver, which decodes them with protobufjs from the OpenTelemetry project's .proto files:
 * names, parent/child links and `gen_ai.*` attributes match the run; people's commands and
 * their receipts ride as span events; a second export sends the same ids; and the spans, posted
 * to Chips' own OTLP endpoint, make the same run again.
 */
let server: TestServer;
let receiver: Receiver;
let ws: Workspace;
let runId: string;

const chips = (args: string[], token: string) => chipsCli(args, { url: server.url, token });

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  ws = await newWorkspace(server);
  runId = newId("run");
  const run = (type: string, fields: Record<string, unknown>) => ev(ws, type, { run_id: runId, ...fields });
  const t0 = Date.now() - 60_000;
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  expect((await post(server, ws.token, runStarted(ws, runId, { session_ref: "sess-42" }))).status).toBe(201);
  const steer = await request(`${server.url}/api/v1/runs/${runId}/commands`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ command: "steer", text: "Use the fast path", idempotency_key: "steer-1" }),
  });
  expect(steer.status, steer.text).toBe(201);
  const batch = [
    run("run.step", { step_id: "s1", state: "active" }),
    run("tool.started", { call_id: "call_a", tool: "Bash", summary: "npm test", input: "npm test", started_at: at(1) }),
    run("tool.finished", { call_id: "call_a", outcome: "ok", exit_code: 0, duration_ms: 1500, output: "ok" }),
    run("run.command_acked", { command_id: steer.body.command_id, result: "applied" }),
    run("tool.finished", {
      call_id: "call_b",
      tool: "Edit",
      summary: "Edit src/app.ts",
      outcome: "failed",
      duration_ms: 200,
      started_at: at(3),
      error: "no match",
    }),
    run("run.step", { step_id: "s1", state: "done" }),
    run("run.finished", {
      outcome: "succeeded",
      usage: { input_tokens: 120, output_tokens: 30, cached_input_tokens: 7 },
    }),
  ];
  const r = await post(server, ws.token, { events: batch });
  expect(r.status, r.text).toBe(201);
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

describe("[OTL7] a run exported as GenAI spans", () => {
  it("chips export RUN --otlp URL: the receiver decodes the run's spans, links and gen_ai attributes", async () => {
    const r = await chips(
      ["export", runId, "--otlp", receiver.url, "--otlp-headers", "x-tenant=chips%20test"],
      ws.person_token,
    );
    expect(r.code, r.out).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect([req.path, req.type, req.headers["x-tenant"]]).toEqual([
      "/v1/traces",
      "application/x-protobuf",
      "chips test",
    ]);
    const spans = decodeSpans(req.body);
    const rootSpan = spans.find((s) => !s.parentSpanId)!;
    expect(spans.map((s) => s.name).sort()).toEqual([
      "execute_tool Bash",
      "execute_tool Edit",
      "invoke_agent my-harness",
      "plan my-harness",
    ]);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    for (const s of spans.filter((x) => x !== rootSpan)) expect(s.parentSpanId).toBe(rootSpan.spanId);
    expect(rootSpan.attrs).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "my-harness",
      "gen_ai.agent.id": ws.harness_id,
      "gen_ai.conversation.id": "sess-42",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "gen_ai.usage.cache_read.input_tokens": 7,
      "chips.run.id": runId,
      "chips.run.goal": "Ship the thing",
      "chips.run.outcome": "succeeded",
    });
    expect(rootSpan.resource).toMatchObject({ "service.name": "chips", "chips.workspace.id": ws.workspace_id });
    const bash = spans.find((s) => s.name === "execute_tool Bash")!;
    expect(bash.attrs).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": "call_a",
      "gen_ai.tool.type": "function",
      "chips.tool.exit_code": 0,
    });
    expect(bash.end - bash.start).toBe(1500);
    const edit = spans.find((s) => s.name === "execute_tool Edit")!;
    expect(edit.status).toEqual({ code: 2, message: "no match" });
    expect(edit.attrs["error.type"]).toBe("tool_error");
    expect(spans.find((s) => s.name.startsWith("plan"))!.attrs).toMatchObject({
      "gen_ai.operation.name": "plan",
      "chips.plan.steps": ["One", "Two"],
      "chips.plan.states": ["done", "pending"],
    });
    expect(
      rootSpan.events.map((e) => [e.name, e.attrs["chips.command.name"] ?? e.attrs["chips.receipt.state"]]),
    ).toEqual([
      ["chips.command", "steer"],
      ["chips.receipt", "applied"],
    ]);
    expect(rootSpan.events[0].attrs).toMatchObject({
      "chips.command.text": "Use the fast path",
      "chips.actor.kind": "person",
    });

    const again = await chips(["export", runId, "--otlp", `${receiver.url}/v1/traces`], ws.person_token);
    expect(again.code, again.out).toBe(0);
    const ids = (b: Buffer) =>
      decodeSpans(b)
        .map((s) => `${s.traceId}/${s.spanId}`)
        .sort();
    expect(ids(receiver.requests[1].body)).toEqual(ids(req.body));
  });

  it("the exported spans posted to Chips' own OTLP endpoint make the same run in another workspace", async () => {
    const other = await newWorkspace(server);
    const bytes = await fetch(`${server.url}/api/v1/runs/${runId}/export?format=otlp`, {
      headers: { authorization: `Bearer ${ws.person_token}` },
    }).then((r) => r.arrayBuffer());
    const r = await request(`${server.url}/v1/traces`, {
      method: "POST",
      token: other.token,
      headers: { "content-type": "application/x-protobuf" },
      body: new Uint8Array(bytes),
    });
    expect(r.status).toBe(200);
    const [copy] = (await request(`${server.url}/api/v1/workspaces/${other.workspace_id}/runs`, { token: other.token }))
      .body.runs;
    expect(copy).toMatchObject({
      goal: "Ship the thing",
      state: "finished",
      outcome: "succeeded",
      session_ref: "sess-42",
    });
    expect(copy.usage).toMatchObject({ input_tokens: 120, output_tokens: 30 });
    expect(copy.plan.map((s: any) => [s.title, s.state])).toEqual([
      ["One", "done"],
      ["Two", "pending"],
    ]);
    expect(copy.tools.last.map((c: any) => [c.call_id, c.tool, c.summary, c.outcome, c.duration_ms])).toEqual([
      ["call_a", "Bash", "npm test", "ok", 1500],
      ["call_b", "Edit", "Edit src/app.ts", "failed", 200],
    ]);
  });
});
