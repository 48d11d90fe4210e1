import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Run } from "../db/client";
import { newId } from "../lib/core/protocol";
import { ev, message, newWorkspace, post, runStarted, runStatus } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

// Its own file: the tables must be as small as a fresh install's when the plans are made.
let server: TestServer;
let database: Database;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  database = server.chips.services.database;
});
afterAll(() => server?.close());

const literal = (v: unknown): string => {
  if (v === null) return "null";
  if (typeof v === "number") return String(v);
  if (Array.isArray(v))
    return literal(`{${v.map((x) => (x === null ? "null" : `"${String(x).replace(/["\\]/g, "\\$&")}"`)).join(",")}}`);
  return `'${String(v).replace(/'/g, "''")}'`;
};
const planText = (rows: Record<string, unknown>[]) => rows.map((r) => Object.values(r)[0]).join("\n");

describe("[ENV9][TOOL2] the writer's plans do not depend on the tables' size or statistics", () => {
  it("[ENV9][TOOL2] plans made while the tables were nearly empty (kept as generic plans) still probe indexes once the tables hold 30,000 events", async () => {
    const ws = await newWorkspace(server);
    // Capture the reads the writer sends for a batch that names events, spaces, runs and agents.
    const reads: { text: string; params: unknown[] }[] = [];
    // And its write, whose guard probes the batch's keys and ids (explained, never executed here).
    const writes: typeof reads = [];
    const real = database.run;
    database.run = (<T>(text: string, params?: unknown[]) => {
      // Its reads, not the notice to other nodes that follows the commit on the same statements' pool.
      if (text.includes("pg_notify")) return real<T>(text, params);
      if (text.trimStart().startsWith("select") || text.trimStart().startsWith("with named_runs"))
        reads.push({ text, params: params ?? [] });
      if (text.trimStart().startsWith("with head as")) writes.push({ text, params: params ?? [] });
      return real<T>(text, params);
    }) as Run;
    try {
      const runId = newId("run");
      const agent = { kind: "agent", id: newId("agent") };
      const r = await post(server, ws.token, {
        events: [
          runStarted(ws, runId),
          // A tool call: the judge asks the run's log for its call_id ([TOOL2]).
          ev(ws, "tool.started", { run_id: runId, call_id: "toolu_1", tool: "Bash", summary: "ls" }),
          { ...runStatus(ws, runId), actor: agent },
          { ...message(ws, "hi"), actor: agent },
        ],
      });
      expect(r.status).toBe(201);
    } finally {
      database.run = real;
    }
    const shapes = [...new Map(reads.map((r) => [r.text, r])).values()];
    // The agent claim ([ENV11] before 422), the events read, the run read models, and the
    // budgets read a run.started brings ([BUD2]: a new run is judged against its harness's budget).
    expect(shapes.length).toBe(4);

    const plans: string[] = [];
    await database.transact(async (run) => {
      await run("set local plan_cache_mode = force_generic_plan");
      for (const [i, s] of shapes.entries()) {
        await run(`prepare plan_probe_${i} as ${s.text}`);
        await run(`execute plan_probe_${i}(${s.params.map(literal).join(", ")})`); // the generic plan is made now, on small tables
      }
      const write = writes[0];
      await run(`prepare plan_write as ${write.text}`);
      const explainWrite = async () =>
        planText(await run(`explain execute plan_write(${write.params.map(literal).join(", ")})`));
      await explainWrite(); // its generic plan, made on small tables
      // The tables grow by 30,000 events, 3,000 runs, commands and agents (no ANALYZE).
      await run(
        `insert into events (workspace_id, seq, id, type, space_id, run_id, idempotency_key, body_hash, body, ts)
        select $1, 1000 + g, 'evt_plan_' || g, 'message.posted', $2, 'run_plan_' || (g % 3000), 'key' || g, 'h', '{}', now() from generate_series(1, 30000) g`,
        [ws.workspace_id, ws.space_id],
      );
      await run(
        `insert into runs (id, workspace_id, space_id, state, goal, plan, last_seq, created_at, updated_at)
        select 'run_plan_' || g, $1, $2, 'running', 'g', '[]', g, now(), now() from generate_series(1, 3000) g`,
        [ws.workspace_id, ws.space_id],
      );
      await run(
        `insert into commands (id, workspace_id, run_id, command, person_id, receipt, seq, created_at)
        select 'cmd_plan_' || g, $1, 'run_plan_' || g, 'pause', 'p', 'accepted', g, now() from generate_series(1, 3000) g`,
        [ws.workspace_id],
      );
      await run(
        `insert into agents (workspace_id, id, harness_id) select $1, 'agent_plan_' || g, 'h' from generate_series(1, 3000) g`,
        [ws.workspace_id],
      );
      for (const [i, s] of shapes.entries())
        plans.push(planText(await run(`explain execute plan_probe_${i}(${s.params.map(literal).join(", ")})`)));
      plans.push(await explainWrite());
      for (const i of shapes.keys()) await run(`deallocate plan_probe_${i}`);
      await run("deallocate plan_write");
    });
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan on (events|runs|commands|agents|run_events)\b/);
    expect(plans.join("\n")).toMatch(/Index Scan using events_workspace_key/);
    // A call_id is probed in its run's tool events, never by a join over every run's calls.
    expect(plans.join("\n")).toMatch(
      /Index Scan using events_tool_calls_idx.*\n\s*Index Cond: \(\(run_id = \w+\.run_id\) AND/,
    );
    expect(plans.at(-1)).toMatch(/Index Only Scan using events_id_key/); // the write's guard on ids
  });
});
