import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { key, newHarness, newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { until } from "./support/feed";
import { command, receipts } from "./support/harness";
import { rawRunner } from "./support/raw-runner";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [RUN3] A command to a queued run is honest about who will get it: while no runner holds
 * the run there is nobody to deliver a steer (or a pause) to, so it is refused and nothing
 * is stored; cancel needs nobody and ends the run at once. Once a runner holds it, a steer
 * is accepted for that runner and delivered to its connection.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
afterAll(() => server?.close());

async function queue(ws: Workspace, repository = "nobody-has-this") {
  const r = await request(`${server.url}/api/v1/runs`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ space_id: ws.space_id, prompt: "Fix the build", repository, idempotency_key: key() }),
  });
  expect(r.status, r.text).toBe(201);
  return r.body.run_id as string;
}
const run = async (ws: Workspace, runId: string) =>
  (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.person_token })).body;

describe("[RUN3] commands to a queued run", () => {
  it("[RUN3] steer, pause and resume of a queued run no runner holds are refused 409 run_not_taken, storing nothing; cancel ends it at once", async () => {
    const ws = await newWorkspace(server);
    const runId = await queue(ws);
    for (const [name, text] of [["steer", "use the other branch"], ["pause"], ["resume"]]) {
      const r = await command(server, ws, runId, name, text);
      expect(r.status, `${name}: ${r.text}`).toBe(409);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.body).toMatchObject({ code: "run_not_taken", errors: [{ pointer: "/command" }] });
      expect(r.body.detail).toContain("no runner has taken this run yet");
    }
    const steer = await command(server, ws, runId, "steer", "use the other branch");
    expect(steer.body.detail).toBe(
      "no runner has taken this run yet: it can be steered once a runner takes it (cancel works now)",
    );
    expect((await receipts(server, ws, runId)).commands).toEqual([]);
    expect((await readEvents(server, ws)).filter((e) => e.run_id === runId).map((e) => e.type)).toEqual(["run.queued"]);
    expect(await run(ws, runId)).toMatchObject({ state: "queued", pending: null });

    const cancel = await command(server, ws, runId, "cancel");
    expect(cancel.status, cancel.text).toBe(201);
    expect(await run(ws, runId)).toMatchObject({ state: "finished", outcome: "cancelled" });
    expect((await receipts(server, ws, runId)).commands).toMatchObject([
      { command: "cancel", receipt: "applied", reason: "cancelled before a runner took it" },
    ]);
    expect((await command(server, ws, runId, "steer", "too late")).body.code).toBe("run_finished");
  });

  it("[RUN3] once a runner holds the queued run, a steer is accepted for that runner and delivered to its connection", async () => {
    const ws = await newWorkspace(server);
    const cred = await newHarness(server, ws, "raw", "runner");
    const runner = await rawRunner(server.url, cred.token);
    const got: { command_id: string; text?: string }[] = [];
    runner.socket.on("command", (c: { command_id: string; text?: string }, ack?: () => void) => {
      got.push(c);
      ack?.();
    });
    try {
      const runId = await queue(ws, "demo");
      await runner.startFor(runId);
      await until(async () => (await run(ws, runId)).harness_id === cred.harness_id, "the run assigned");
      expect((await run(ws, runId)).state).toBe("queued");
      const steer = await command(server, ws, runId, "steer", "start with the tests");
      expect(steer.status, steer.text).toBe(201);
      await until(() => got.some((c) => c.command_id === steer.body.command_id), "the runner got the steer");
      await until(
        async () => (await receipts(server, ws, runId)).commands[0]?.receipt === "delivered",
        "the steer's receipt delivered",
      );
      expect((await receipts(server, ws, runId)).commands[0]).toMatchObject({
        command: "steer",
        harness_id: cred.harness_id,
        text: "start with the tests",
      });
    } finally {
      runner.close();
    }
  });
});
