/**
 * `npm run bench -- --only otlp [--db pglite|postgres|both] [--runs N] [--calls K] [--clients C] [--quiet-wait S]`
 *
 * OTLP ingest against the events API, same run, same events (docs/OTEL.md, docs/PERFORMANCE.md):
 * N agent runs of K tool calls each, posted by C closed-loop clients, once as GenAI spans
 * (`POST /v1/traces`, protobuf from the OTel SDK's own serializer: one request a run, its
 * invoke_agent root, a chat span and an execute_tool span per call) and once as the events
 * those spans become (`POST /api/v1/events`: one batch a run — run.started, a run.status and
 * a tool.finished per call, run.finished), each into a fresh workspace of the same server.
 * Prints events/s of each and their ratio; the aim is OTLP ≥ 0.5× the events API. Never run in CI.
 */
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SpanKind, TraceFlags } from "@opentelemetry/api";
import { millisToHrTime } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { newId } from "@/lib/core/protocol";
import { startCluster } from "../../scripts/pg-cluster.mjs";
import { createWorkspace, harnessEvent, keepAlive, postBatch, request, type Workspace } from "../lib/api";
import { pgAdmin } from "../lib/pg-watch";
import { spawnServer } from "../lib/server-child";
import { waitQuiet } from "../lib/stats";
import { aimsTable, ratio, table } from "../lib/table";

type ReadableSpan = Parameters<typeof ProtobufTraceSerializer.serializeRequest>[0][number];

function parseArgs(argv: string[]) {
  const o = { db: "pglite", runs: 200, calls: 10, clients: 8, quietWait: 60 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const val = () => inline ?? argv[++i] ?? "";
    if (flag === "--db") o.db = val();
    else if (flag === "--runs") o.runs = Number(val());
    else if (flag === "--calls") o.calls = Number(val());
    else if (flag === "--clients") o.clients = Number(val());
    else if (flag === "--quiet-wait") o.quietWait = Number(val());
    else if (flag === "--help" || flag === "-h") {
      console.log(fs.readFileSync(import.meta.filename, "utf8").split("*/")[0]);
      process.exit(0);
    } else throw new Error(`unknown flag ${argv[i]} (try --help)`);
  }
  if (!["pglite", "postgres", "both"].includes(o.db)) throw new Error("--db is pglite, postgres or both");
  for (const k of ["runs", "calls", "clients"] as const)
    if (!(Number.isInteger(o[k]) && o[k] > 0)) throw new Error(`--${k} is a whole number > 0`);
  return o;
}

const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
const resource = resourceFromAttributes({ "service.name": "bench-agent" });

/** One run's spans: invoke_agent, then per call a chat (usage) and an execute_tool. */
function runSpans(calls: number): ReadableSpan[] {
  const traceId = hex(32);
  const root = hex(16);
  const t0 = Date.now() - 60_000;
  const span = (
    spanId: string,
    parent: string | undefined,
    name: string,
    start: number,
    end: number,
    attributes: Record<string, string | number>,
  ): ReadableSpan => ({
    name,
    kind: SpanKind.INTERNAL,
    spanContext: () => ({ traceId, spanId, traceFlags: TraceFlags.SAMPLED }),
    parentSpanContext: parent ? { traceId, spanId: parent, traceFlags: TraceFlags.SAMPLED } : undefined,
    startTime: millisToHrTime(start),
    endTime: millisToHrTime(end),
    duration: millisToHrTime(end - start),
    status: { code: 0 },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: { name: "bench" },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  });
  const out: ReadableSpan[] = [];
  for (let i = 0; i < calls; i++) {
    const at = t0 + 10 + i * 100;
    out.push(
      span(hex(16), root, "chat model", at, at + 40, {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.input_tokens": 100,
        "gen_ai.usage.output_tokens": 20,
      }),
    );
    out.push(
      span(hex(16), root, "execute_tool Bash", at + 50, at + 90, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": `call_${i}`,
        "gen_ai.tool.call.arguments": `{"command":"npm test -- ${i}"}`,
      }),
    );
  }
  out.push(
    span(root, undefined, "invoke_agent bench", t0, t0 + 20 + calls * 100, {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "bench",
    }),
  );
  return out;
}

/** The same run as the events its spans become. */
function runEvents(ws: Workspace, calls: number) {
  const run = newId("run");
  const ev = (type: string, f: Record<string, unknown>) => harnessEvent(ws, type, { run_id: run, ...f });
  const events = [ev("run.started", { goal: "bench run", commands: [] })];
  for (let i = 0; i < calls; i++) {
    events.push(
      ev("run.status", {
        phase: "thinking",
        verb_phrase: "Thinking…",
        usage: { input_tokens: 100 * (i + 1), output_tokens: 20 * (i + 1) },
      }),
    );
    events.push(
      ev("tool.finished", {
        call_id: `call_${i}`,
        tool: "Bash",
        summary: `npm test -- ${i}`,
        outcome: "ok",
        duration_ms: 40,
      }),
    );
  }
  events.push(ev("run.finished", { outcome: "succeeded" }));
  return events.map(({ space_id: _s, ...e }) => (e.type === "run.started" ? { ...e, space_id: ws.space_id } : e));
}

function postOtlp(agent: http.Agent, url: string, token: string, body: Uint8Array): Promise<number> {
  const u = new URL(`${url}/v1/traces`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: {
          "content-type": "application/x-protobuf",
          "content-length": body.length,
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Send `n` jobs with `clients` closed-loop workers; answers the seconds it took. */
async function closedLoop(n: number, clients: number, job: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < n) await job(next++);
    }),
  );
  return (performance.now() - t0) / 1000;
}

async function storedCount(agent: http.Agent, url: string, ws: Workspace): Promise<number> {
  let after = 0;
  let n = 0;
  for (;;) {
    const r = await request(
      agent,
      `${url}/api/v1/workspaces/${ws.workspace_id}/events?after=${after}&limit=1000`,
      "GET",
      ws.token,
    );
    const page = JSON.parse(r.body) as { events: unknown[]; next_after: number };
    n += page.events.length;
    if (page.events.length < 1000) return n;
    after = page.next_after;
  }
}

async function measure(db: "pglite" | "postgres", o: ReturnType<typeof parseArgs>, pgUrl?: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chips-bench-otlp-"));
  const server = await spawnServer({ dataDir, databaseUrl: pgUrl });
  const agent = keepAlive(o.clients * 2);
  try {
    const [wsEvents, wsOtlp, warm] = [
      await createWorkspace(agent, server.url, server.adminToken),
      await createWorkspace(agent, server.url, server.adminToken),
      await createWorkspace(agent, server.url, server.adminToken),
    ];
    // Warm both paths (JIT, connections, the decoder's protos) on a third workspace.
    for (let i = 0; i < 5; i++) {
      await postBatch(agent, server.url, warm.token, runEvents(warm, o.calls));
      await postOtlp(agent, server.url, warm.token, ProtobufTraceSerializer.serializeRequest(runSpans(o.calls))!);
    }
    const bodies = Array.from({ length: o.runs }, () => ProtobufTraceSerializer.serializeRequest(runSpans(o.calls))!);
    const batches = Array.from({ length: o.runs }, () => runEvents(wsEvents, o.calls));
    await waitQuiet(o.quietWait);
    const eventsSec = await closedLoop(o.runs, o.clients, async (i) => {
      await postBatch(agent, server.url, wsEvents.token, batches[i]);
    });
    await waitQuiet(o.quietWait);
    const otlpSec = await closedLoop(o.runs, o.clients, async (i) => {
      const status = await postOtlp(agent, server.url, wsOtlp.token, bodies[i]);
      if (status !== 200) throw new Error(`OTLP answered ${status}`);
    });
    const [nEvents, nOtlp] = [
      await storedCount(agent, server.url, wsEvents),
      await storedCount(agent, server.url, wsOtlp),
    ];
    return { db, nEvents, nOtlp, eventsRate: nEvents / eventsSec, otlpRate: nOtlp / otlpSec, eventsSec, otlpSec };
  } finally {
    agent.destroy();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const dbs = o.db === "both" ? (["pglite", "postgres"] as const) : ([o.db] as ("pglite" | "postgres")[]);
  console.log(
    `OTLP vs events API: ${o.runs} runs × ${o.calls} calls, ${o.clients} clients, server in a child process.\n`,
  );
  const rows = [];
  let cluster: { url: string; stop(): Promise<void> } | null = null;
  try {
    for (const db of dbs) {
      let url: string | undefined;
      if (db === "postgres") {
        cluster ??= await startCluster({ quiet: true });
        url = (await pgAdmin(cluster.url).freshDatabase("bench_otlp")).url;
      }
      rows.push(await measure(db, o, url));
    }
  } finally {
    await cluster?.stop();
  }
  console.log(
    table(
      ["database", "events API: events", "s", "events/s", "OTLP: events", "s", "events/s", "OTLP ÷ events API"],
      rows.map((r) => [
        r.db,
        r.nEvents,
        r.eventsSec.toFixed(2),
        Math.round(r.eventsRate),
        r.nOtlp,
        r.otlpSec.toFixed(2),
        Math.round(r.otlpRate),
        ratio(r.otlpRate, r.eventsRate),
      ]),
    ) + "\n",
  );
  console.log(
    aimsTable(
      rows.map((r) => ({
        what: `OTLP ingest, ${r.db}`,
        aim: "≥ 0.5× the events API",
        got: ratio(r.otlpRate, r.eventsRate),
        met: r.otlpRate >= 0.5 * r.eventsRate,
      })),
    ),
  );
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
