import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { runInstrumentedAgent } from "./support/otel-sdk";
import { startTestServer, type TestServer } from "./support/server";

/**
 * OTLP in from a real OpenTelemetry client: the OTel JS SDK's tracer provider and its official
 * OTLP exporters post GenAI spans to Chips, which makes them a watch-only run with its tool
 * calls, usage and end ([OTL1], [OTL6]).
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => {
  server = await startTestServer();
  ws = await newWorkspace(server);
});
afterAll(() => server.close());

const runsOf = async (w: Workspace) =>
  (await request(`${server.url}/api/v1/workspaces/${w.workspace_id}/runs`, { token: w.token })).body.runs as any[];

describe("[OTL6] GenAI spans from the OTel JS SDK become a run with its tool calls", () => {
  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`over ${protocol}: invoke_agent is the run, execute_tool its calls, chat its usage, plan its dots`, async () => {
      const w = await newWorkspace(server);
      const sent = await runInstrumentedAgent({
        url: server.url,
        token: w.token,
        protocol,
        agent: "builder",
        plan: ["Read the failure", "Fix it"],
        calls: [
          { id: "call_1", tool: "Bash", command: "npm test" },
          { id: "call_2", tool: "Bash", command: "npm run build", failed: true },
        ],
      });
      const [run] = await runsOf(w);
      expect(run).toMatchObject({
        state: "finished",
        outcome: "succeeded",
        goal: "Fix the build with builder",
        commands: [],
        harness_id: w.harness_id,
        space_id: w.space_id,
        usage: { input_tokens: 200, output_tokens: 40 },
      });
      expect(run.plan.map((s: any) => s.title)).toEqual(["Read the failure", "Fix it"]);
      expect(run.tools).toMatchObject({ count: 2, failed: 1, running: 0 });
      expect(run.tools.last.map((c: any) => [c.call_id, c.tool, c.summary, c.outcome, c.duration_ms])).toEqual([
        ["call_1", "Bash", "npm test", "ok", 250],
        ["call_2", "Bash", "npm run build", "failed", 250],
      ]);
      const events = (await readEvents(server, w)).filter((e) => e.run_id === run.id);
      expect(events.map((e) => e.type)).toEqual([
        "run.started",
        "run.step",
        "run.step",
        "run.status",
        "tool.finished",
        "run.status",
        "tool.finished",
        "run.finished",
      ]);
      expect(events.find((e) => e.type === "tool.finished" && e.outcome === "failed")).toMatchObject({
        call_id: "call_2",
        error: "tool_error: exit status 1",
        started_at: expect.any(String),
      });
      expect(sent.traceId).toMatch(/^[0-9a-f]{32}$/);
    });
  }

  it("a resource naming the room (chips.space.id) puts the run there", async () => {
    const w = await newWorkspace(server);
    const room = await request(`${server.url}/api/v1/workspaces/${w.workspace_id}/spaces`, {
      method: "POST",
      token: w.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "telemetry" }),
    });
    await runInstrumentedAgent({
      url: server.url,
      token: w.token,
      protocol: "http/protobuf",
      agent: "roomy",
      resource: { "chips.space.id": room.body.id },
      calls: [{ id: "c1", tool: "Bash", command: "ls" }],
    });
    const [run] = await runsOf(w);
    expect(run.space_id).toBe(room.body.id);
  });
});

describe("[OTL2] who may post, and what", () => {
  it("a person's token is refused 403, no token 401; nothing is stored", async () => {
    const before = (await readEvents(server, ws)).length;
    for (const [token, status] of [
      [ws.person_token, 403],
      [undefined, 401],
      ["chips_hrn_not-a-token", 401],
    ] as const) {
      const r = await request(`${server.url}/v1/traces`, {
        method: "POST",
        token,
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(r.status, r.text).toBe(status);
    }
    expect((await readEvents(server, ws)).length).toBe(before);
  });
});
