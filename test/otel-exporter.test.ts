import { afterAll, beforeAll, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { ev, newWorkspace, post, runStarted } from "./support/api";
import { until } from "./support/feed";
import { decodeSpans, startReceiver, type Receiver } from "./support/otlp-receiver";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [OTL8] The continuous exporter: with CHIPS_OTLP_EXPORT_URL set, a run that finishes goes out
 * as GenAI spans, with the configured headers; a receiver that refuses (503) is retried with
 * backoff, and meanwhile ingest answers as always.
 */
let server: TestServer;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({
    otlpExportUrl: `${receiver.url}/v1/traces`,
    otlpExportHeaders: "authorization=Bearer%20receiver-token",
  });
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

it("[OTL8] a finished run is sent as spans, retried after the receiver's 503, without holding up ingest", async () => {
  const ws = await newWorkspace(server);
  receiver.answer.push(503, 503);
  const runId = newId("run");
  expect((await post(server, ws.token, runStarted(ws, runId))).status).toBe(201);
  const finished = await post(server, ws.token, {
    events: [
      ev(ws, "tool.finished", {
        run_id: runId,
        call_id: "c1",
        tool: "Bash",
        summary: "make",
        outcome: "ok",
        duration_ms: 5,
      }),
      ev(ws, "run.finished", { run_id: runId, outcome: "succeeded" }),
    ],
  });
  expect(finished.status).toBe(201);
  // A run still going is not sent; another run posted while the receiver refuses is answered at once.
  const other = newId("run");
  expect((await post(server, ws.token, runStarted(ws, other))).status).toBe(201);
  await until(() => receiver.requests.length >= 1, "the run sent once the receiver took it", 20_000);
  expect(receiver.answer).toEqual([]); // both 503s were met: the exporter retried
  const [req] = receiver.requests;
  expect(req.headers.authorization).toBe("Bearer receiver-token");
  const spans = decodeSpans(req.body);
  expect(spans.map((s) => s.name).sort()).toEqual(["execute_tool Bash", "invoke_agent my-harness", "plan my-harness"]);
  expect(spans.find((s) => !s.parentSpanId)!.attrs["chips.run.id"]).toBe(runId);
  expect(receiver.requests).toHaveLength(1);
});
