import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchQuery } from "../lib/core/review/search-text";
import { ev, post, request, serverWithWorkspace, startRun, type Workspace } from "./support/api";
import { type TestServer } from "./support/server";
import { foundRuns } from "./support/search";

/**
 * [TOOL6] Search by tool and argument: runs that ran a command, runs with a call of a tool,
 * runs where a call failed — each finding exactly those runs, not a run that only talks of it.
 */
let server: TestServer;
let ws: Workspace;
const runs: Record<string, string> = {};

/** Durations given to calls, by tool: what the rollup's percentiles must come to. */
const times: Record<string, number[]> = {};

async function withCalls(name: string, goal: string, calls: Array<[string, string, string?, number?]>) {
  const runId = await startRun(server, ws, { goal });
  for (const [tool, , , ms] of calls) if (ms !== undefined) (times[tool] ??= []).push(ms);
  const events = calls.flatMap(([tool, summary, outcome, ms], i) => [
    ev(ws, "tool.started", { run_id: runId, call_id: `${name}-${i}`, tool, summary }),
    ev(ws, "tool.finished", {
      run_id: runId,
      call_id: `${name}-${i}`,
      outcome: outcome ?? "ok",
      ...(outcome === "failed" ? { exit_code: 1 } : {}),
      ...(ms !== undefined ? { duration_ms: ms } : {}),
    }),
  ]);
  if (events.length) {
    const r = await post(server, ws.token, { events });
    if (r.status !== 201) throw new Error(r.text);
  }
  runs[name] = runId;
}

beforeAll(async () => {
  ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 }));
  await withCalls("published", "Release 1.2", [
    ["Bash", "npm test", "ok", 1000],
    ["Bash", "npm publish --access public", "ok", 3000],
  ]);
  // Both words, never the command: npm and publish in separate calls.
  await withCalls("apart", "Tidy the scripts", [
    ["Bash", "npm ci", "ok", 200],
    ["Bash", "./publish-docs.sh", "ok", 400],
  ]);
  // Talks of it, ran nothing of it.
  await withCalls("talker", "Should we npm publish today?", []);
  await withCalls("codex", "Release 1.3", [["exec_command", "npm publish", "failed", 700]]);
  // Asked to publish and refused before it ran: a whole denied call (a gate's, as chips connect claude sends it).
  runs.gated = await startRun(server, ws, { goal: "Release 1.4" });
  const denied = await post(server, ws.token, {
    events: [
      ev(ws, "tool.finished", {
        run_id: runs.gated,
        call_id: "gated-0",
        tool: "Bash",
        summary: "npm publish",
        outcome: "denied",
      }),
    ],
  });
  if (denied.status !== 201) throw new Error(denied.text);
  await withCalls("lint", "Lint", [
    ["Bash", "npm run lint", "failed", 5000],
    ["Edit", "Edit src/a.ts", "ok", 10],
  ]);
}, 60_000);
afterAll(() => server?.close());

const found = (q: string) => foundRuns(server, ws, runs, q);

describe("[TOOL6] runs found by their tool calls", () => {
  it('[TOOL6] ran:"npm publish" finds exactly the runs that ran it — not one that ran its words apart, nor one that only said them, nor one refused it', async () => {
    expect(await found('ran:"npm publish"')).toEqual(["codex", "published"]);
    // The plain words find every run that holds them, goals and calls' summaries included.
    expect(await found("npm publish")).toEqual(["apart", "codex", "gated", "published", "talker"]);
    expect(await found("ran:publish")).toEqual(["apart", "codex", "published"]);
  });

  it("[TOOL6] tool:NAME finds runs with a call of that tool; failed:tool runs where a call failed; failed:NAME of that tool", async () => {
    expect(await found("tool:Bash")).toEqual(["apart", "gated", "lint", "published"]);
    expect(await found("tool:exec_command")).toEqual(["codex"]);
    expect(await found("failed:tool")).toEqual(["codex", "lint"]);
    expect(await found("failed:Bash")).toEqual(["lint"]);
    expect(await found('tool:Edit ran:"npm run"')).toEqual(["lint"]);
    // Operators and words together: all must hold.
    expect(await found('release ran:"npm publish"')).toEqual(["codex", "published"]);
    expect(await found("release failed:tool")).toEqual(["codex"]);
  });

  it("[TOOL6] the operators become exact lexemes; a query of operators alone is a query", () => {
    expect(searchQuery('ran:"npm publish"')).toBe("'ran:npm' & 'ran:publish' & 'ran:npm~publish'");
    expect(searchQuery("tool:Bash failed:tool")).toBe("'tool:bash' & 'failed:tool'");
    expect(searchQuery("deploy tool:exec_command")).toBe("'tool:exec_command' & 'deploy':*");
    expect(searchQuery('ran:""')).toBeNull();
  });
});

/** PostgreSQL's percentile_cont over the values. */
function percentile(values: number[], p: number): number {
  const v = [...values].sort((a, b) => a - b);
  const at = (v.length - 1) * p;
  const lo = Math.floor(at);
  return Math.round(v[lo] + (v[Math.min(lo + 1, v.length - 1)] - v[lo]) * (at - lo));
}

describe("[TOOL6] rollups by tool", () => {
  it("[TOOL6] per tool: its calls and the runs that made them, failures of the calls that ended, the median and p90 of their times; also as CSV", async () => {
    const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/review/rollups?by=tool`, {
      token: ws.token,
    });
    expect(r.status, r.text).toBe(200);
    const rows = Object.fromEntries(r.body.rows.map((x: any) => [x.key, x]));
    expect(Object.keys(rows).sort()).toEqual(["Bash", "Edit", "exec_command"]);
    // The refused call is one of Bash's calls (ended, not failed, untimed).
    expect(rows.Bash).toMatchObject({ calls: 6, runs: 4, finished: 6, failed: 1, failure_rate: 1 / 6 });
    expect(rows.Bash.p50_ms).toBe(percentile(times.Bash, 0.5));
    expect(rows.Bash.p90_ms).toBe(percentile(times.Bash, 0.9));
    expect(rows.exec_command).toMatchObject({ calls: 1, runs: 1, failed: 1, failure_rate: 1, p90_ms: 700 });
    const csv = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/review/rollups?by=tool&format=csv`, {
      token: ws.token,
    });
    const lines = csv.text.trim().split("\r\n");
    expect(lines[0]).toBe("tool,key,runs,calls,finished,failed,failure_rate,p50_ms,p90_ms,tokens,cost_usd");
    expect(lines).toContain(
      `Bash,Bash,4,6,6,1,${1 / 6},${percentile(times.Bash, 0.5)},${percentile(times.Bash, 0.9)},,`,
    );
  });

  it("[TOOL6] a call indexed in two rounds — its start, later its end with no time of its own — is timed from its start by the server's clock", async () => {
    const rollup = async () =>
      (
        await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/review/rollups?by=tool`, { token: ws.token })
      ).body.rows.find((x: any) => x.key === "Read");
    const runId = await startRun(server, ws, { goal: "Read slowly" });
    const [start] = (
      await post(
        server,
        ws.token,
        ev(ws, "tool.started", { run_id: runId, call_id: "r1", tool: "Read", summary: "Read a.ts" }),
      )
    ).body.events;
    expect(await rollup()).toMatchObject({ calls: 1, finished: 0, p90_ms: null });
    const [end] = (
      await post(server, ws.token, ev(ws, "tool.finished", { run_id: runId, call_id: "r1", outcome: "ok" }))
    ).body.events;
    expect(await rollup()).toMatchObject({ calls: 1, finished: 1, p90_ms: Date.parse(end.ts) - Date.parse(start.ts) });
  });
});
