import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type Run } from "../lib/core/protocol";
import { ev, key, newWorkspace, post, request, startRun, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [ANN1] [ANN2] [ANN3] Annotations are events of the run: a person's verdict or comment,
 * through the annotations API only, taken in any state of the run, aimed at the run, one of
 * its events or a file of its change-set; the run's review folds from them.
 */
let server: TestServer;
let ws: Workspace;

const annotate = (runId: string, body: unknown, token = ws.person_token, type = "application/json") =>
  request(`${server.url}/api/v1/runs/${runId}/annotations`, {
    method: "POST",
    token,
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const run = async (id: string) => (await request(`${server.url}/api/v1/runs/${id}`, { token: ws.token })).body as Run;

beforeAll(async () => {
  server = await startTestServer();
  ws = await newWorkspace(server);
}, 60_000);
afterAll(() => server?.close());

describe("annotations", () => {
  it("[ANN1] a person's verdict becomes the run's; a comment counts without changing it; a retry is the same event", async () => {
    const id = await startRun(server, ws);
    const k = key();
    const first = await annotate(id, { verdict: "needs_work", comment: "Check **March** too", idempotency_key: k });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      type: "run.annotated",
      run_id: id,
      verdict: "needs_work",
      target: { kind: "run" },
      actor: { kind: "person", id: ws.person_id },
    });
    const again = await annotate(id, { verdict: "needs_work", comment: "Check **March** too", idempotency_key: k });
    expect(again.status).toBe(200);
    expect(again.body.seq).toBe(first.body.seq);
    expect((await annotate(id, { comment: "Looked at the totals", idempotency_key: key() })).status).toBe(201);
    expect((await run(id)).review).toMatchObject({ verdict: "needs_work", verdict_by: ws.person_id, annotations: 2 });
  });

  it("[ANN1] only through the annotations API, only from people: POST /events refuses it, a harness token too", async () => {
    const id = await startRun(server, ws);
    const raw = {
      ...ev(ws, "run.annotated", {
        run_id: id,
        annotation_id: newId("annotation"),
        verdict: "approved",
        target: { kind: "run" },
      }),
      actor: undefined,
    };
    expect((await post(server, ws.person_token, raw)).status).toBe(403);
    expect((await annotate(id, { verdict: "approved", idempotency_key: key() }, ws.token)).status).toBe(403);
  });

  it("[ANN2] a finished run takes annotations (review comes after); the [HTTP2] order holds", async () => {
    const id = await startRun(server, ws);
    expect((await post(server, ws.token, ev(ws, "run.finished", { run_id: id, outcome: "succeeded" }))).status).toBe(
      201,
    );
    expect((await annotate(id, { verdict: "approved", idempotency_key: key() })).status).toBe(201);
    expect((await run(id)).review?.verdict).toBe("approved");
    // 415, 400 and 422 of the body come before the 404 of an unknown run.
    const nobody = newId("run");
    expect((await annotate(nobody, "{}", ws.person_token, "text/plain")).status).toBe(415);
    expect((await annotate(nobody, "{not json")).status).toBe(400);
    const empty = await annotate(nobody, { idempotency_key: key() });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].pointer).toBe("/comment");
    expect((await annotate(nobody, { verdict: "approved", idempotency_key: key() })).status).toBe(404);
  });

  it("[ANN3] an event target must be an event of the run; a diff target a file of its change-set", async () => {
    const a = await startRun(server, ws);
    const b = await startRun(server, ws);
    const own = (await post(server, ws.token, ev(ws, "run.status", { run_id: a, phase: "p", verb_phrase: "Reading…" })))
      .body.events[0];
    const other = (
      await post(server, ws.token, ev(ws, "run.status", { run_id: b, phase: "p", verb_phrase: "Elsewhere…" }))
    ).body.events[0];
    expect(
      (await annotate(a, { comment: "this one", target: { kind: "event", seq: own.seq }, idempotency_key: key() }))
        .status,
    ).toBe(201);
    const wrong = await annotate(a, {
      comment: "not ours",
      target: { kind: "event", seq: other.seq },
      idempotency_key: key(),
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].pointer).toBe("/target/seq");
    const diff = await annotate(a, {
      comment: "here",
      target: { kind: "diff", path: "src/a.ts", line: 3 },
      idempotency_key: key(),
    });
    expect(diff.status).toBe(422);
    expect(diff.body.errors[0].pointer).toBe("/target");
  });
});
