import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RollupRow } from "../lib/core/protocol";
import { seedHistory, type SeedHistory } from "../lib/dev/history";
import { newWorkspace, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [ROL1] Rollups against figures computed here, independently, from the seeded history's
 * own run models: per harness and per day, the runs, failed of finished, the continuous
 * median and p90 of finished durations, tokens and cost; and the CSV carries the same.
 */
let server: TestServer;
let ws: Workspace;
let seeded: SeedHistory;
let mapped: Map<string, string>;

const get = (path: string) => request(`${server.url}${path}`, { token: ws.person_token });

/** percentile_cont: linear interpolation between the closest ranks. */
function pct(values: number[], p: number): number | null {
  if (!values.length) return null;
  const v = [...values].sort((a, b) => a - b);
  const at = p * (v.length - 1);
  const lo = Math.floor(at);
  return Math.round(v[lo] + (v[Math.min(lo + 1, v.length - 1)] - v[lo]) * (at - lo));
}

/** What the generator made, run by run: its facts, its day (its first event's) and its last reported usage (from its events). */
interface Made {
  harness: string | null;
  day: string;
  status: string;
  durationMs: number | null;
  usage: { input_tokens: number; output_tokens: number; cost_usd?: number } | null;
}
function made(): Made[] {
  return seeded.facts.map((f) => {
    const events = seeded.doc.runs.find((r) => r.run.id === f.id)!.events as { ts: string; usage?: Made["usage"] }[];
    const used = events.filter((e) => e.usage);
    return {
      harness: f.harness,
      day: events[0].ts.slice(0, 10),
      status: f.status,
      durationMs: f.durationMs,
      usage: used.length ? used[used.length - 1].usage! : null,
    };
  });
}

function expected(key: (m: Made) => string | null) {
  const groups = new Map<string | null, Made[]>();
  for (const m of made()) groups.set(key(m), [...(groups.get(key(m)) ?? []), m]);
  return new Map(
    [...groups].map(([k, runs]) => {
      const finished = runs.filter((r) => ["succeeded", "failed", "cancelled"].includes(r.status));
      const durations = finished.flatMap((r) => (r.durationMs === null ? [] : [r.durationMs]));
      const used = runs.filter((r) => r.usage);
      const cost = used.filter((r) => r.usage!.cost_usd !== undefined);
      return [
        k,
        {
          runs: runs.length,
          finished: finished.length,
          failed: finished.filter((r) => r.status === "failed").length,
          p50_ms: pct(durations, 0.5),
          p90_ms: pct(durations, 0.9),
          tokens: used.length ? used.reduce((s, r) => s + r.usage!.input_tokens + r.usage!.output_tokens, 0) : null,
          cost_usd: cost.length ? cost.reduce((s, r) => s + r.usage!.cost_usd!, 0) : null,
        },
      ];
    }),
  );
}

beforeAll(async () => {
  server = await startTestServer();
  ws = await newWorkspace(server);
  seeded = seedHistory({ runs: 30, events: 600, seed: 31 });
  const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/import`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(seeded.doc),
  });
  expect(r.status, r.text).toBe(201);
  mapped = new Map(r.body.runs.map((x: { from: string; to: string }) => [x.from, x.to]));
}, 120_000);
afterAll(() => server?.close());

describe("[ROL1] rollups", () => {
  it("[ROL1] per harness and per day: runs, failure counts, median and p90 duration, tokens and cost match an independent count", async () => {
    const byHarness = await get(`/api/v1/workspaces/${ws.workspace_id}/review/rollups?by=harness`);
    expect(byHarness.status, byHarness.text).toBe(200);
    const want = expected((m) => m.harness);
    const csv = (await get(`/api/v1/workspaces/${ws.workspace_id}/review/rollups?by=harness&format=csv`)).text
      .trimEnd()
      .split("\r\n");
    expect(csv[0]).toBe("harness,key,runs,finished,failed,failure_rate,p50_ms,p90_ms,tokens,cost_usd");
    const got = new Map(
      csv
        .slice(1)
        .map((l) => l.split(","))
        .map((f) => [f[0], f]),
    );
    expect([...got.keys()].sort()).toEqual([...want.keys()].map(String).sort());
    for (const [name, w] of want) {
      const f = got.get(String(name))!;
      expect(
        { runs: +f[2], finished: +f[3], failed: +f[4], p50_ms: f[6] ? +f[6] : null, p90_ms: f[7] ? +f[7] : null },
        String(name),
      ).toEqual({ runs: w.runs, finished: w.finished, failed: w.failed, p50_ms: w.p50_ms, p90_ms: w.p90_ms });
    }
    const rows = byHarness.body.rows as RollupRow[];
    expect(rows.reduce((s, r) => s + r.runs, 0)).toBe(seeded.doc.runs.length);

    const byDay = (await get(`/api/v1/workspaces/${ws.workspace_id}/review/rollups?by=day`)).body.rows as RollupRow[];
    const days = expected((m) => m.day);
    expect(byDay.map((r) => r.key)).toEqual([...days.keys()].sort());
    for (const r of byDay) {
      const w = days.get(r.key)!;
      expect({
        ...r,
        failure_rate: undefined,
        cost_usd: r.cost_usd === null ? null : Math.round(r.cost_usd * 1e6),
      }).toEqual({
        key: r.key,
        ...w,
        failure_rate: undefined,
        cost_usd: w.cost_usd === null ? null : Math.round(w.cost_usd * 1e6),
      });
    }
    expect(mapped.size).toBe(seeded.doc.runs.length);
  });

  it("[ROL1] a bad grouping or day is a 422 naming the parameter", async () => {
    const r = await get(`/api/v1/workspaces/${ws.workspace_id}/review/rollups?by=year`);
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toContain("/query/by");
    expect(
      JSON.stringify((await get(`/api/v1/workspaces/${ws.workspace_id}/review/rollups?from=2026-13`)).body),
    ).toContain("/query/from");
  });
});
