import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ev, newWorkspace, post, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const decide = (ws: Workspace, fields: Record<string, unknown>) =>
  post(server, ws.person_token, {
    ...ev(ws, "decision.recorded", {
      space_id: ws.space_id,
      status: "active",
      title: "T",
      text: "Because.",
      ...fields,
    }),
    actor: undefined,
  });
const decisions = async (ws: Workspace) =>
  (await request(`${server.url}/api/v1/spaces/${ws.space_id}/decisions`, { token: ws.token })).body.decisions;

describe("[DEC1][DEC2] a room's decisions: recorded, superseded, withdrawn", () => {
  it("[DEC1] a decision is recorded active, attributed and timestamped; superseding one marks the old one superseded by the new", async () => {
    const ws = await newWorkspace(server);
    const a = await decide(ws, { decision_id: "dec-a", title: "Use PostgreSQL", text: "One store." });
    expect(a.status, a.text).toBe(201);
    const b = await decide(ws, {
      decision_id: "dec-b",
      title: "Use PostgreSQL 17",
      text: "Pinned.",
      supersedes: "dec-a",
    });
    expect(b.status, b.text).toBe(201);
    const all = await decisions(ws);
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({
      decision_id: "dec-a",
      status: "superseded",
      superseded_by: "dec-b",
      actor: { kind: "person", id: ws.person_id },
      ts: a.body.events[0].ts,
      seq: a.body.events[0].seq,
      updated_seq: b.body.events[0].seq,
    });
    expect(all[1]).toMatchObject({
      decision_id: "dec-b",
      status: "active",
      supersedes: "dec-a",
      superseded_by: null,
      ts: b.body.events[0].ts,
    });
  });

  it("[DEC1] refusals: a new decision recorded superseded (422), superseding an unknown one (422) or one already superseded (409); nothing stored", async () => {
    const ws = await newWorkspace(server);
    expect((await decide(ws, { decision_id: "d1" })).status).toBe(201);
    expect((await decide(ws, { decision_id: "d2", supersedes: "d1" })).status).toBe(201);
    const born = await decide(ws, { decision_id: "d3", status: "superseded" });
    expect([born.status, born.body.errors[0].pointer]).toEqual([422, "/status"]);
    const ghost = await decide(ws, { decision_id: "d4", supersedes: "nope" });
    expect([ghost.status, ghost.body.errors[0].pointer]).toEqual([422, "/supersedes"]);
    const twice = await decide(ws, { decision_id: "d5", supersedes: "d1" });
    expect([twice.status, twice.body.code]).toEqual([409, "invalid_transition"]);
    expect((await decisions(ws)).map((d: any) => d.decision_id)).toEqual(["d1", "d2"]);
  });

  it("[DEC2] an active decision may be withdrawn (re-recorded superseded); anything else on an existing id is 409", async () => {
    const ws = await newWorkspace(server);
    expect((await decide(ws, { decision_id: "w1" })).status).toBe(201);
    const again = await decide(ws, { decision_id: "w1", title: "Changed my mind" });
    expect([again.status, again.body.code]).toEqual([409, "invalid_transition"]);
    const withdrawn = await decide(ws, { decision_id: "w1", status: "superseded" });
    expect(withdrawn.status, withdrawn.text).toBe(201);
    expect(await decisions(ws)).toMatchObject([
      { decision_id: "w1", status: "superseded", superseded_by: null, title: "T" },
    ]);
    const more = await decide(ws, { decision_id: "w1", status: "superseded" });
    expect(more.status).toBe(409);
  });

  it("[HTTP2] for a decision: 403 for a harness, then 422, then a replay wins, then 409", async () => {
    const ws = await newWorkspace(server);
    const harness = await post(
      server,
      ws.token,
      ev(ws, "decision.recorded", { space_id: ws.space_id, decision_id: "h", title: "T", text: "x", status: "active" }),
    );
    expect(harness.status).toBe(403);
    const first = {
      ...ev(ws, "decision.recorded", {
        space_id: ws.space_id,
        decision_id: "r",
        title: "T",
        text: "x",
        status: "active",
      }),
      actor: undefined,
    };
    expect((await post(server, ws.person_token, first)).status).toBe(201);
    expect((await post(server, ws.person_token, first)).status).toBe(200);
    const bad = await post(server, ws.person_token, { ...first, id: undefined });
    expect(bad.status).toBe(422);
  });
});
