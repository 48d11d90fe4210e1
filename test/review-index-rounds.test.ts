import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { message, post, request, runStarted, runStatus, serverWithWorkspace, type Workspace } from "./support/api";
import type { TestServer } from "./support/server";

/**
 * [IDX1] The review index is kept after commit in rounds: a commit that touches no run
 * schedules none (only runs are indexed), a run's commits schedule one, and a read never
 * waits for a round — it settles the index first, so a run is found the moment it was stored.
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

const timers = () => server.chips.services.review.held().indexTimers;

async function stored(body: unknown) {
  const r = await post(server, ws.token, body);
  expect(r.status).toBe(201);
}

async function search(q: string) {
  const r = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/review/runs?q=${encodeURIComponent(q)}`, {
    token: ws.person_token,
  });
  expect(r.status).toBe(200);
  return (r.body.runs as { id: string }[]).map((x) => x.id);
}

describe("review index rounds", () => {
  it("[IDX1] messages outside runs schedule no index round; a run's events do, and a read finds the run at once", async () => {
    await server.chips.services.review.settle(ws.workspace_id);
    for (let i = 0; i < 5; i++) await stored(message(ws, `chatter ${i}`));
    expect(timers()).toBe(0);

    const run = runStarted(ws, undefined, { goal: "Reticulate the splines" });
    await stored(run);
    expect(timers()).toBe(1);
    await stored(runStatus(ws, run.run_id, { verb_phrase: "Counting zebras" }));
    expect(timers()).toBe(1); // the second commit shares the round already scheduled

    // Asked before the round ran: the read settles the index itself.
    expect(await search("reticulate")).toEqual([run.run_id]);
    expect(await search("zebras")).toEqual([run.run_id]);
  });
});
