import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExportDocument, Run } from "../lib/core/protocol";
import { seedHistory } from "../lib/dev/history";
import { newWorkspace, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [EXP1] [EXP2] Export and import over HTTP: a run's NDJSON is its events in seq order, the
 * JSON document carries the run, its events and its artifacts; imported into another
 * workspace the run folds to the same read model (new ids and seqs, same times and
 * states), a second import stores nothing, and no credential of another workspace reads
 * an export.
 */
let server: TestServer;
let a: Workspace;
let b: Workspace;
let runs: { from: string; to: string }[];

const json = (ws: Workspace, method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, {
    method,
    token: ws.person_token,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  server = await startTestServer();
  a = await newWorkspace(server);
  b = await newWorkspace(server);
  const r = await json(
    a,
    "POST",
    `/api/v1/workspaces/${a.workspace_id}/import`,
    seedHistory({ runs: 12, events: 300, seed: 4 }).doc,
  );
  expect(r.status, r.text).toBe(201);
  runs = r.body.runs;
}, 120_000);
afterAll(() => server?.close());

/** A read model with its ids and seqs taken out: what must be the same after an import. */
function shape(run: Run): unknown {
  return JSON.parse(
    JSON.stringify(run, (k, v) =>
      ["seq", "started_seq", "last_seq", "updated_seq"].includes(k) ? undefined : v,
    ).replace(/\b(ws|spc|run|evt|hrn|agt|rnr|usr|cmd)_[0-9A-Z]{26}\b/g, "$1_…"),
  );
}

describe("export and import", () => {
  it("[EXP1] a run's NDJSON is its events in seq order; the JSON document has the run, the same events and the artifacts", async () => {
    const id = runs.find((r) => r.to)!.to;
    const nd = await json(a, "GET", `/api/v1/runs/${id}/export?format=ndjson`);
    expect(nd.status).toBe(200);
    expect(nd.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = nd.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.every((e) => e.run_id === id)).toBe(true);
    expect(lines.map((e) => e.seq)).toEqual([...lines.map((e) => e.seq)].sort((x, y) => x - y));
    const doc = (await json(a, "GET", `/api/v1/runs/${id}/export`)).body as ExportDocument;
    expect(doc.runs).toHaveLength(1);
    expect(doc.runs[0].events).toEqual(lines);
    expect(doc.runs[0].run.id).toBe(id);
  });

  it("[EXP2] imported into another workspace, every run folds to the same read model; a second import stores nothing", async () => {
    const all = await json(a, "GET", `/api/v1/workspaces/${a.workspace_id}/review/export`);
    expect(all.status).toBe(200);
    const doc = all.body as ExportDocument;
    expect(doc.runs).toHaveLength(runs.length);
    const first = await json(b, "POST", `/api/v1/workspaces/${b.workspace_id}/import`, doc);
    expect(first.status, first.text).toBe(201);
    for (const { from, to } of first.body.runs as { from: string; to: string }[]) {
      const src = (await json(a, "GET", `/api/v1/runs/${from}`)).body as Run;
      const copy = (await json(b, "GET", `/api/v1/runs/${to}`)).body as Run;
      expect(copy.workspace_id).toBe(b.workspace_id);
      expect(shape(copy)).toEqual(shape(src));
    }
    const again = await json(b, "POST", `/api/v1/workspaces/${b.workspace_id}/import`, doc);
    expect(again.status).toBe(200);
    expect(again.body.stored).toBe(0);
    // Artifacts came along: the diff of a run with a change-set reads back in the new workspace.
    const withDiff = (first.body.runs as { to: string }[]).map((r) => r.to);
    let read = 0;
    for (const id of withDiff) {
      const run = (await json(b, "GET", `/api/v1/runs/${id}`)).body as Run;
      const sha = (run.change_set as { diff?: { sha256: string } } | null)?.diff?.sha256;
      if (!sha) continue;
      expect((await json(b, "GET", `/api/v1/runs/${id}/objects/${sha}`)).status).toBe(200);
      read++;
    }
    expect(read).toBeGreaterThan(0);
  });

  it("[EXP1] another workspace's person reads no export of this one", async () => {
    const id = runs[0].to;
    expect((await json(b, "GET", `/api/v1/runs/${id}/export`)).status).toBe(404);
    expect((await json(b, "GET", `/api/v1/workspaces/${a.workspace_id}/review/export`)).status).toBe(403);
    expect((await json(b, "GET", `/api/v1/workspaces/${a.workspace_id}/review/runs`)).status).toBe(403);
  });
});
