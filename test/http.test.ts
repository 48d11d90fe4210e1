import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import {
  serverWithWorkspace,
  message,
  newWorkspace,
  post,
  request,
  runStatus,
  startRun,
  type Workspace,
} from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

const expectProblem = (r: { status: number; headers: Headers; body: any }, status: number, code: string) => {
  expect(r.status).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.body).toMatchObject({ status, code });
  expect(typeof r.body.type).toBe("string");
  expect(typeof r.body.title).toBe("string");
  expect(typeof r.body.detail).toBe("string");
};

describe("[HTTP1] answers", () => {
  it("[HTTP1] one event and a batch both answer {events: [...]} in the order sent", async () => {
    const one = await post(server, ws.token, message(ws, "one"));
    expect(one.status).toBe(201);
    expect(one.body.events).toHaveLength(1);
    const batch = [message(ws, "a"), message(ws, "b"), message(ws, "c")];
    const r = await post(server, ws.token, { events: batch });
    expect(r.status).toBe(201);
    expect(r.body.events.map((e: any) => e.id)).toEqual(batch.map((e) => e.id));
    const seqs = r.body.events.map((e: any) => e.seq);
    expect(seqs).toEqual([seqs[0], seqs[0] + 1, seqs[0] + 2]);
  });

  it("[HTTP1] a batch is all-or-nothing: one bad event → its error with the pointer, nothing stored", async () => {
    const fresh = await newWorkspace(server);
    const batch = [message(fresh, "a"), message(fresh, "b"), message(fresh, "c"), { ...message(fresh, "d"), text: 42 }];
    const r = await post(server, fresh.token, { events: batch });
    expectProblem(r, 422, "validation_failed");
    expect(r.body.errors[0].pointer).toBe("/events/3/text");
    const after = await request(`${server.url}/api/v1/workspaces/${fresh.workspace_id}/events?after=0`, {
      token: fresh.token,
    });
    expect(after.body.events).toEqual([]);
  });

  it("[HTTP1] a batch refused by a stateful rule stores nothing and leaves no hole in seq", async () => {
    const fresh = await newWorkspace(server);
    const runId = await startRun(server, fresh);
    const r = await post(server, fresh.token, {
      events: [message(fresh, "a"), runStatus(fresh, newId("run")), message(fresh, "c")],
    });
    expectProblem(r, 404, "run_not_found");
    expect(r.body.errors[0].pointer).toBe("/events/1/run_id");
    const next = await post(server, fresh.token, runStatus(fresh, runId));
    expect(next.body.events[0].seq).toBe(2);
  });

  it("[HTTP1] 201 if anything new was stored, 200 if every event was a replay", async () => {
    const a = message(ws, "a");
    const b = message(ws, "b");
    expect((await post(server, ws.token, { events: [a] })).status).toBe(201);
    const mixed = await post(server, ws.token, { events: [a, b] });
    expect(mixed.status).toBe(201);
    const replay = await post(server, ws.token, { events: [a, b] });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(mixed.body);
  });

  it("[HTTP1] two events with one key in one batch: the second is the first's replay", async () => {
    const a = message(ws, "dup");
    const r = await post(server, ws.token, { events: [a, a] });
    expect(r.status).toBe(201);
    expect(r.body.events[1]).toEqual(r.body.events[0]);
  });
});

describe("[HTTP2] errors in order", () => {
  it("[HTTP2] 401 before anything else, and on every API route", async () => {
    expectProblem(await post(server, undefined, "not json", { "content-type": "text/plain" }), 401, "unauthorized");
    expectProblem(await post(server, "chips_hrn_nope", message(ws, "x")), 401, "unauthorized");
    expectProblem(await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/events`), 401, "unauthorized");
  });
  it("[HTTP2] 415 before 413 before 400", async () => {
    expectProblem(
      await post(server, ws.token, "x".repeat(2 * 1024 * 1024), { "content-type": "text/plain" }),
      415,
      "unsupported_media_type",
    );
    expectProblem(await post(server, ws.token, "{" + "x".repeat(2 * 1024 * 1024)), 413, "payload_too_large");
    expectProblem(await post(server, ws.token, "{broken"), 400, "invalid_json");
  });
  it("[HTTP2] a batch over 500 events is 413", async () => {
    const events = Array.from({ length: 501 }, (_, i) => message(ws, `m${i}`));
    expectProblem(await post(server, ws.token, { events }), 413, "payload_too_large");
  });
  it("[HTTP2] 403 before 422, across a batch", async () => {
    const other = await newWorkspace(server);
    const r = await post(server, ws.token, {
      events: [
        { ...message(ws, "x"), v: 2 },
        { ...message(other, "y"), actor: { kind: "harness", id: ws.harness_id } },
      ],
    });
    expectProblem(r, 403, "forbidden");
  });
  it("[HTTP2] a replay wins over the 409s and 404s below it", async () => {
    const runId = await startRun(server, ws);
    const status = runStatus(ws, runId);
    await post(server, ws.token, status);
    await post(server, ws.token, {
      ...runStatus(ws, runId),
      type: "run.finished",
      outcome: "succeeded",
      phase: undefined,
      verb_phrase: undefined,
    });
    const r = await post(server, ws.token, status); // the run has finished since
    expect(r.status).toBe(200);
  });
});

describe("[HTTP2] load: 429 and 503 with Retry-After", () => {
  let limited: TestServer;
  let lws: Workspace;
  beforeAll(async () => {
    // A refill of one token per 1,000 s: nothing refills while the test runs.
    limited = await startTestServer({ rateLimit: 0.001, rateBurst: 3, maxQueueEvents: 2 });
    lws = await newWorkspace(limited);
  });
  afterAll(() => limited?.close());

  it("[HTTP2] past its rate a credential gets 429 rate_limited, yet a replay is still answered", async () => {
    const first = message(lws, "1");
    expect((await post(limited, lws.token, first)).status).toBe(201);
    expect((await post(limited, lws.token, { events: [message(lws, "2"), message(lws, "3")] })).status).toBe(201);
    const r = await post(limited, lws.token, message(lws, "4"));
    expectProblem(r, 429, "rate_limited");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await post(limited, lws.token, first)).status).toBe(200);
  });

  it("[HTTP2] past the write queue's bound a request gets 503 overloaded", async () => {
    const other = await newWorkspace(limited);
    const r = await post(limited, other.token, {
      events: [message(other, "a"), message(other, "b"), message(other, "c")],
    });
    expectProblem(r, 503, "overloaded");
    expect(r.headers.get("retry-after")).toBe("1");
  });
});

describe("catch-up reads and schemas", () => {
  it("GET events pages ascending with next_after, filters by space, caps limit at 1000", async () => {
    const fresh = await newWorkspace(server);
    await post(server, fresh.token, { events: Array.from({ length: 5 }, (_, i) => message(fresh, `m${i}`)) });
    const page = await request(`${server.url}/api/v1/workspaces/${fresh.workspace_id}/events?after=1&limit=2`, {
      token: fresh.person_token,
    });
    expect(page.body.events.map((e: any) => e.seq)).toEqual([2, 3]);
    expect(page.body.next_after).toBe(3);
    const end = await request(`${server.url}/api/v1/workspaces/${fresh.workspace_id}/events?after=5`, {
      token: fresh.token,
    });
    expect(end.body).toEqual({ events: [], next_after: 5 });
    const other = await request(
      `${server.url}/api/v1/workspaces/${fresh.workspace_id}/events?space=${newId("space")}`,
      { token: fresh.token },
    );
    expect(other.body.events).toEqual([]);
    expectProblem(
      await request(`${server.url}/api/v1/workspaces/${fresh.workspace_id}/events?limit=1001`, { token: fresh.token }),
      422,
      "validation_failed",
    );
    expectProblem(
      await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/events`, { token: fresh.token }),
      403,
      "forbidden",
    );
  });

  it("serves a JSON Schema per type and for the envelope, generated from the zod source", async () => {
    const env = await request(`${server.url}/schemas/envelope.json`);
    expect(env.status).toBe(200);
    expect(env.body.$id).toBe("/schemas/envelope.json");
    const status = await request(`${server.url}/schemas/run.status.json`);
    expect(status.body.properties.progress).toMatchObject({ type: "number", minimum: 0, maximum: 1 });
    expect(status.body.required).toEqual(
      expect.arrayContaining(["v", "type", "id", "workspace_id", "phase", "verb_phrase"]),
    );
    expect((await request(`${server.url}/schemas/nope.json`)).status).toBe(404);
  });
});
