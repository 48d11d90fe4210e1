import zlib from "node:zlib";
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

describe("[OTL1] [OTL6] GenAI spans from the OTel JS SDK become a run with its tool calls", () => {
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

  it("[OTL4] a resource naming the room (chips.space.id) puts the run there", async () => {
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

describe("[OTL10] text the store cannot hold is relayed as U+FFFD", () => {
  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`over ${protocol}: a NUL in the agent's name, a call id and a command (JSON inside an attribute) — the run is stored`, async () => {
      const w = await newWorkspace(server);
      await runInstrumentedAgent({
        url: server.url,
        token: w.token,
        protocol,
        agent: "bui\u0000lder",
        calls: [{ id: "call_\u00001", tool: "Bash", command: "printf 'a\u0000b'" }],
      });
      const [run] = await runsOf(w);
      expect(run).toMatchObject({ state: "finished", outcome: "succeeded", goal: "Fix the build with bui\ufffdlder" });
      expect(run.tools.last.map((c: any) => [c.call_id, c.summary])).toEqual([["call_\ufffd1", "printf 'a\ufffdb'"]]);
    });
  }
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

  it("a body that does not decode is 400, another type 415, past 4 MiB 413 — each with nothing stored", async () => {
    const before = await readEvents(server, ws);
    const cases: [string, string, string | Buffer, Record<string, string>, number][] = [
      ["traces", "application/x-protobuf", Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), {}, 400],
      ["logs", "application/json", "{not json", {}, 400],
      ["logs", "application/json", "[]", {}, 400],
      ["traces", "application/x-protobuf", Buffer.from("not gzip"), { "content-encoding": "gzip" }, 400],
      ["traces", "application/x-protobuf", Buffer.alloc(8), { "content-encoding": "br" }, 415],
      ["metrics", "text/plain", "hello", {}, 415],
      ["traces", "application/json", Buffer.alloc(4 * 1024 * 1024 + 1, 32), {}, 413],
      [
        "traces",
        "application/json",
        zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024 + 1, 32)),
        { "content-encoding": "gzip" },
        413,
      ],
    ];
    for (const [signal, type, body, headers, status] of cases) {
      const r = await request(`${server.url}/v1/${signal}`, {
        method: "POST",
        token: ws.token,
        headers: { "content-type": type, ...headers },
        body: typeof body === "string" ? body : new Uint8Array(body),
      });
      expect(`${signal} ${type} ${JSON.stringify(headers)}: ${r.status}`, r.text).toBe(
        `${signal} ${type} ${JSON.stringify(headers)}: ${status}`,
      );
      expect(r.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(await readEvents(server, ws)).toEqual(before);
  });

  it("metrics are taken and kept nowhere: 200 with an empty answer", async () => {
    const r = await request(`${server.url}/v1/metrics`, {
      method: "POST",
      token: ws.token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: "m", sum: { dataPoints: [{ asInt: "1" }] } }] }] }],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
  });
});
