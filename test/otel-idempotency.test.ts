import zlib from "node:zlib";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { codexLogs, claudeLogs } from "./support/otlp-logs";
import { recordAgentSpans } from "./support/otel-sdk";
import { startTestServer, type TestServer } from "./support/server";

/**
 * A retried export stores nothing twice ([OTL3]): byte-identical resends (what Claude Code does
 * after a 5xx), resends in another order and in other batches, in either encoding — each
 * record's events carry keys and ids drawn from its own stable ids. And a body that does not
 * decode is refused with nothing stored ([OTL2]).
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

function postOtlp(
  w: Workspace,
  signal: string,
  body: Uint8Array | string,
  type = "application/x-protobuf",
  headers: Record<string, string> = {},
) {
  return request(`${server.url}/v1/${signal}`, {
    method: "POST",
    token: w.token,
    headers: { "content-type": type, ...headers },
    body: typeof body === "string" ? body : Buffer.from(body),
  });
}
const agent = {
  agent: "retrier",
  calls: [
    { id: "c1", tool: "Bash", command: "make" },
    { id: "c2", tool: "Bash", command: "make test", failed: true },
  ],
};

describe("[OTL3] a retried export stores nothing twice", () => {
  it("the same protobuf bytes again, and gzipped: 200, nothing new", async () => {
    const w = await newWorkspace(server);
    const bytes = ProtobufTraceSerializer.serializeRequest(await recordAgentSpans(agent))!;
    const first = await postOtlp(w, "traces", bytes);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/x-protobuf");
    const stored = await readEvents(server, w);
    expect(stored.filter((e) => e.type === "tool.finished").length).toBe(2);
    for (const again of [bytes, zlib.gzipSync(bytes)]) {
      const r = await postOtlp(
        w,
        "traces",
        again,
        "application/x-protobuf",
        again === bytes ? {} : { "content-encoding": "gzip" },
      );
      expect(r.status, r.text).toBe(200);
    }
    expect(await readEvents(server, w)).toEqual(stored);
  });

  it("the same spans in another order, split in two JSON requests, last first: nothing new", async () => {
    const w = await newWorkspace(server);
    const spans = await recordAgentSpans(agent);
    const r = await postOtlp(w, "traces", ProtobufTraceSerializer.serializeRequest(spans)!);
    expect(r.status).toBe(200);
    const stored = await readEvents(server, w);
    const reversed = [...spans].reverse();
    const json = (part: typeof spans) => new TextDecoder().decode(JsonTraceSerializer.serializeRequest(part)!);
    for (const part of [reversed.slice(3), reversed.slice(0, 3)]) {
      const again = await postOtlp(w, "traces", json(part), "application/json");
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual({});
    }
    expect(await readEvents(server, w)).toEqual(stored);
  });

  it("[OTL6] spans that come after their run's end are refused, counted in the answer's partial success", async () => {
    const w = await newWorkspace(server);
    const spans = await recordAgentSpans(agent);
    const json = (part: typeof spans) => new TextDecoder().decode(JsonTraceSerializer.serializeRequest(part)!);
    const root = spans.filter((s) => !s.parentSpanContext);
    const rest = spans.filter((s) => s.parentSpanContext);
    const end = await postOtlp(w, "traces", json(root), "application/json");
    expect(end.body).toEqual({});
    const late = await postOtlp(w, "traces", json(rest), "application/json");
    expect(late.status).toBe(200);
    expect(late.body).toEqual({
      partialSuccess: { rejectedSpans: String(rest.length - 0), errorMessage: expect.stringMatching(/has finished/) },
    });
    const [run] = (await request(`${server.url}/api/v1/workspaces/${w.workspace_id}/runs`, { token: w.token })).body
      .runs;
    expect(run).toMatchObject({ state: "finished", tools: null });
  });

  it("[OTL5] Claude Code's logs: a result before its decision, then both again: one whole call", async () => {
    const w = await newWorkspace(server);
    const logs = claudeLogs("5f1e7c2a-0000-4000-8000-000000000001", [
      { name: "user_prompt", attrs: { prompt: "<REDACTED>" } },
      {
        name: "tool_decision",
        attrs: { tool_name: "Bash", tool_use_id: "toolu_a", decision: "accept", source: "config" },
      },
      {
        name: "tool_result",
        attrs: {
          tool_name: "Bash",
          tool_use_id: "toolu_a",
          success: "false",
          duration_ms: "54",
          error_type: "ShellError",
          error: "Shell command failed",
          tool_input: JSON.stringify({ command: "echo partial; exit 3" }),
        },
      },
      { name: "api_request", attrs: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 2, cost_usd: 0.000175 } },
    ]);
    const [prompt, decision, result, usage] = logs.records;
    for (const part of [[prompt, result], [decision], [prompt, decision, result, usage], [usage, result]]) {
      const r = await postOtlp(w, "logs", JSON.stringify(logs.body(part)), "application/json");
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({});
    }
    const events = await readEvents(server, w);
    const tools = events.filter((e) => e.type.startsWith("tool."));
    expect(tools.map((e) => [e.type, e.call_id, e.outcome, e.summary])).toEqual([
      ["tool.finished", "toolu_a", "failed", "echo partial; exit 3"],
    ]);
    expect(events.filter((e) => e.usage).map((e) => e.usage)).toEqual([
      { input_tokens: 10, output_tokens: 5, cached_input_tokens: 2, cost_usd: 0.000175 },
    ]);
  });

  it("[OTL5] Codex's logs: the exit code from the output, not `success`; a resend in reverse stores nothing", async () => {
    const w = await newWorkspace(server);
    const logs = codexLogs("019a0000-0000-7000-8000-00000000c0de", [
      { name: "codex.user_prompt", attrs: { prompt: "Run the checks", prompt_length: "14" } },
      {
        name: "codex.tool_decision",
        attrs: { tool_name: "exec_command", call_id: "call_1", decision: "approved", source: "Config" },
      },
      {
        name: "codex.tool_result",
        attrs: {
          tool_name: "exec_command",
          call_id: "call_1",
          duration_ms: "31",
          success: "true",
          arguments: JSON.stringify({ cmd: "echo partial; exit 3" }),
          output: "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 3\nOutput:\npartial\n",
        },
      },
      {
        name: "codex.sse_event",
        attrs: {
          "event.kind": "response.completed",
          input_token_count: "155",
          output_token_count: 12,
          cached_token_count: 0,
        },
      },
    ]);
    const r = await postOtlp(w, "logs", JSON.stringify(logs.body(logs.records)), "application/json");
    expect(r.status, r.text).toBe(200);
    const stored = await readEvents(server, w);
    expect(stored[0]).toMatchObject({
      type: "run.started",
      goal: "Run the checks",
      commands: [],
      session_ref: logs.session,
    });
    expect(stored.find((e) => e.type === "tool.finished")).toMatchObject({
      call_id: "call_1",
      tool: "exec_command",
      summary: "echo partial; exit 3",
      outcome: "failed",
      exit_code: 3,
      duration_ms: 31,
    });
    const again = await postOtlp(w, "logs", JSON.stringify(logs.body([...logs.records].reverse())), "application/json");
    expect(again.status).toBe(200);
    expect(await readEvents(server, w)).toEqual(stored);
  });
});
