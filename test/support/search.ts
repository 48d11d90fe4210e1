import { expect } from "vitest";
import { request, type Workspace } from "./api";

/**
 * The runs a search of the runs list finds (`GET …/review/runs?q=`, up to 200), by the names a
 * test gave them (name → run id), sorted: what search tests compare against.
 */
export async function foundRuns(
  server: { url: string },
  ws: Workspace,
  runs: Record<string, string>,
  q: string,
): Promise<string[]> {
  const r = await request(
    `${server.url}/api/v1/workspaces/${ws.workspace_id}/review/runs?q=${encodeURIComponent(q)}&limit=200`,
    { token: ws.token },
  );
  expect(r.status, r.text).toBe(200);
  const byId = Object.fromEntries(Object.entries(runs).map(([k, v]) => [v, k]));
  return r.body.runs.map((x: { id: string }) => byId[x.id]).sort();
}
