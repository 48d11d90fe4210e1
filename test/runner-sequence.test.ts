import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ev, key, newHarness, post, request, serverWithWorkspace, type Workspace } from "./support/api";
import { rawRunner } from "./support/raw-runner";
import type { TestServer } from "./support/server";

/**
 * [RN2] on both databases, through a runner connection speaking the raw protocol: a run handed
 * to it by Chips, then runner events posted as a runner would — and as a confused or replaying
 * one would.
 */
let server: TestServer;
let ws: Workspace;
let runner: { harness_id: string; token: string };
let raw: Awaited<ReturnType<typeof rawRunner>>;
beforeAll(async () => {
  ({ server, ws } = await serverWithWorkspace());
  runner = await newHarness(server, ws, "raw runner", "runner");
  raw = await rawRunner(server.url, runner.token);
});
afterAll(async () => {
  raw?.close();
  await server?.close();
});

/** A person queues a run; Chips hands it to the raw runner. */
async function assignedRun(): Promise<string> {
  const r = await request(`${server.url}/api/v1/runs`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ space_id: ws.space_id, prompt: "Do it", repository: "demo", idempotency_key: key() }),
  });
  expect(r.status).toBe(201);
  await raw.startFor(r.body.run_id);
  return r.body.run_id;
}

const runnerEvent = (runId: string, sequence: number, message: string) => {
  const { idempotency_key: _none, ...e } = ev(
    ws,
    "runner.event",
    { run_id: runId, sequence, kind: "log", message, occurred_at: "2026-12-01T10:00:00Z" },
    runner.harness_id,
  );
  return e;
};

const stored = async (runId: string) =>
  (await request(`${server.url}/api/v1/runs/${runId}/runner-events`, { token: ws.token })).body.events.map((e: any) => [
    e.sequence,
    e.message,
  ]);

describe("[RN2] runner event sequences rise strictly per run", () => {
  it("[RN2] gaps are allowed; a lower or repeated sequence is a replay when the body is the same and 409 sequence_conflict when it differs, storing nothing", async () => {
    const runId = await assignedRun();
    const one = runnerEvent(runId, 1, "one");
    const two = runnerEvent(runId, 2, "two");
    const five = runnerEvent(runId, 5, "five");
    for (const e of [one, two, five]) expect((await post(server, runner.token, e)).status).toBe(201);

    // The same event again — the last one or an older one — is answered with the stored event.
    for (const e of [five, two]) {
      const again = await post(server, runner.token, e);
      expect(again.status).toBe(200);
      expect(again.body.events[0]).toMatchObject({ id: e.id, sequence: e.sequence, message: e.message });
    }
    const seqHead = (await post(server, runner.token, five)).body.events[0].seq;

    // Another body under a stored sequence, or a sequence below the run's highest that was never stored.
    for (const [sequence, detail] of [
      [5, /already has runner event 5 with another body/],
      [2, /already has runner event 2 with another body/],
      [3, /this run is at 5, so 3 comes too late/],
      [4, /this run is at 5, so 4 comes too late/],
    ] as const) {
      const r = await post(server, runner.token, runnerEvent(runId, sequence, `late ${sequence}`));
      expect(r.status, `sequence ${sequence}`).toBe(409);
      expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(r.body.code).toBe("sequence_conflict");
      expect(r.body.detail).toMatch(detail);
      expect(r.body.errors).toEqual([{ pointer: "/sequence", message: r.body.detail }]);
    }

    // In a batch: a sequence that does not rise past one earlier in the same request refuses the batch.
    const batch = await post(server, runner.token, {
      events: [runnerEvent(runId, 7, "seven"), runnerEvent(runId, 6, "six")],
    });
    expect(batch.status).toBe(409);
    expect(batch.body.code).toBe("sequence_conflict");
    expect(batch.body.errors[0].pointer).toBe("/events/1/sequence");

    expect((await post(server, runner.token, runnerEvent(runId, 6, "six"))).status).toBe(201);
    expect(await stored(runId)).toEqual([
      [1, "one"],
      [2, "two"],
      [5, "five"],
      [6, "six"],
    ]);
    // Nothing refused took a seq: the workspace's log grew by the one event since.
    const log = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/events?after=${seqHead}`, {
      token: ws.token,
    });
    expect(log.body.events.map((e: any) => [e.type, e.sequence])).toEqual([["runner.event", 6]]);
  });

  it("[RN2] each run keeps its own sequences: another run of the same runner starts again at 1", async () => {
    const a = await assignedRun();
    const b = await assignedRun();
    expect((await post(server, runner.token, runnerEvent(a, 10, "a ten"))).status).toBe(201);
    expect((await post(server, runner.token, runnerEvent(b, 1, "b one"))).status).toBe(201);
    expect((await post(server, runner.token, runnerEvent(a, 9, "a nine"))).body.code).toBe("sequence_conflict");
    expect(await stored(b)).toEqual([[1, "b one"]]);
  });
});
