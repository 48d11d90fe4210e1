import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { ev, newWorkspace, post, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** A person's save of the room (the server sets the actor): `revision` is the one it makes. */
const save = (ws: Workspace, revision: number, fields: { intent?: string; outcome?: string }) =>
  post(server, ws.person_token, {
    ...ev(ws, "room.updated", { space_id: ws.space_id, revision, ...fields }),
    actor: undefined,
  });

const room = async (ws: Workspace) =>
  (await request(`${server.url}/api/v1/spaces/${ws.space_id}/room`, { token: ws.token })).body.room;
const revisions = async (ws: Workspace) =>
  (await request(`${server.url}/api/v1/spaces/${ws.space_id}/revisions`, { token: ws.token })).body.revisions;

describe("[ROOM1] a room's intent and outcome: revisions, gap-free, conflicts detected", () => {
  it("[ROOM1] an untouched room is revision 0 with empty intent and outcome; a save makes revision 1, kept with who and when", async () => {
    const ws = await newWorkspace(server);
    expect(await room(ws)).toMatchObject({ revision: 0, intent: "", outcome: "", actor: null });
    const r = await save(ws, 1, { intent: "Ship the **login** page", outcome: "Tests green" });
    expect(r.status, r.text).toBe(201);
    const now = await room(ws);
    expect(now).toMatchObject({
      revision: 1,
      intent: "Ship the **login** page",
      outcome: "Tests green",
      actor: { kind: "person", id: ws.person_id },
      seq: r.body.events[0].seq,
    });
    expect(now.ts).toBe(r.body.events[0].ts);
  });

  it("[ROOM1] a text a save leaves out is kept; the history folds every revision in order", async () => {
    const ws = await newWorkspace(server);
    expect((await save(ws, 1, { intent: "A", outcome: "done when A" })).status).toBe(201);
    expect((await save(ws, 2, { intent: "A and B" })).status).toBe(201);
    expect((await save(ws, 3, { outcome: "done when A and B" })).status).toBe(201);
    const h = await revisions(ws);
    expect(h.map((x: any) => [x.revision, x.intent, x.outcome])).toEqual([
      [1, "A", "done when A"],
      [2, "A and B", "done when A"],
      [3, "A and B", "done when A and B"],
    ]);
    expect(await room(ws)).toEqual(h[2]);
  });

  it("[ROOM1] a save based on an older revision is refused 409 revision_conflict with the other's text, and stores nothing", async () => {
    const ws = await newWorkspace(server);
    expect((await save(ws, 1, { intent: "Mine first" })).status).toBe(201);
    const stale = await save(ws, 1, { intent: "Also based on revision 0" });
    expect(stale.status).toBe(409);
    expect(stale.headers.get("content-type")).toContain("application/problem+json");
    expect(stale.body).toMatchObject({
      code: "revision_conflict",
      errors: [{ pointer: "/revision" }],
      current: { revision: 1, intent: "Mine first", actor: { kind: "person", id: ws.person_id } },
    });
    const skip = await save(ws, 5, { intent: "From the future" });
    expect(skip.status).toBe(409);
    expect((await revisions(ws)).length).toBe(1);
  });

  it("[ENV10] a harness cannot edit the room: room.updated is a person's", async () => {
    const ws = await newWorkspace(server);
    const r = await post(server, ws.token, ev(ws, "room.updated", { space_id: ws.space_id, revision: 1, intent: "x" }));
    expect(r.status).toBe(403);
    expect((await room(ws)).revision).toBe(0);
  });

  it("[ROOM1] 20 concurrent editors: every revision lands exactly once, 1..20 with no gap, nobody's text lost", async () => {
    const ws = await newWorkspace(server);
    const editors = Array.from({ length: 20 }, (_, i) => `editor ${i}`);
    let conflicts = 0;
    // Each editor reads the room, saves on top of it, and on a conflict starts again from the room it was shown.
    await Promise.all(
      editors.map(async (name) => {
        let base = (await room(ws)).revision;
        for (;;) {
          const r = await save(ws, base + 1, { intent: `intent by ${name}` });
          if (r.status === 201) return;
          expect(r.status, r.text).toBe(409);
          expect(r.body.code).toBe("revision_conflict");
          conflicts++;
          base = r.body.current.revision;
        }
      }),
    );
    const h = await revisions(ws);
    expect(h.map((x: any) => x.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(h.map((x: any) => x.intent))).toEqual(new Set(editors.map((n) => `intent by ${n}`)));
    expect((await room(ws)).revision).toBe(20);
    expect(conflicts).toBeGreaterThan(0); // they did collide: the refusals are what kept the count exact
  });

  it("[ROOM1] GET room and revisions answer 404 space_not_found for another workspace's room", async () => {
    const ws = await newWorkspace(server);
    const other = await newWorkspace(server);
    for (const p of ["room", "revisions"]) {
      const r = await request(`${server.url}/api/v1/spaces/${other.space_id}/${p}`, { token: ws.token });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("space_not_found");
    }
  });

  it("[HTTP2] the order of refusals for a save: 403, 422, then a replay of a known key wins, then 404 space_not_found, then 409 revision_conflict", async () => {
    const ws = await newWorkspace(server);
    const first = {
      ...ev(ws, "room.updated", { space_id: ws.space_id, revision: 1, intent: "one" }),
      actor: undefined,
    };
    expect((await post(server, ws.person_token, first)).status).toBe(201);
    // The same event again: a replay, answered as stored, although revision 1 is now taken.
    const again = await post(server, ws.person_token, first);
    expect(again.status).toBe(200);
    expect(again.body.events[0].revision).toBe(1);
    // A stale save in a room that does not exist: 404 before 409.
    const nowhere = await post(server, ws.person_token, {
      ...ev(ws, "room.updated", { space_id: newId("space"), revision: 1 }),
      actor: undefined,
    });
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.code).toBe("space_not_found");
    // Revision 0 is no save at all: 422 before anything of state.
    const zero = await post(server, ws.person_token, {
      ...ev(ws, "room.updated", { space_id: ws.space_id, revision: 0 }),
      actor: undefined,
    });
    expect(zero.status).toBe(422);
    expect(zero.body.errors[0].pointer).toBe("/revision");
    // A harness, even with a stale revision: 403 first.
    const harness = await post(server, ws.token, ev(ws, "room.updated", { space_id: ws.space_id, revision: 1 }));
    expect(harness.status).toBe(403);
  });
});
