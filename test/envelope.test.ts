import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import {
  serverWithWorkspace,
  ev,
  message,
  newHarness,
  newWorkspace,
  post,
  readEvents,
  runStatus,
  startRun,
  type Workspace,
} from "./support/api";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

describe("[ENV1] protocol version", () => {
  it("[ENV1] accepts v: 1", async () => {
    const r = await post(server, ws.token, message(ws, "hello"));
    expect(r.status).toBe(201);
    expect(r.body.events[0].v).toBe(1);
  });
  it("[ENV1] refuses any other major with 422 unsupported_version", async () => {
    const r = await post(server, ws.token, { ...message(ws, "hello"), v: 2 });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("unsupported_version");
    expect(r.headers.get("content-type")).toContain("application/problem+json");
  });
});

describe("[ENV2] event type", () => {
  it("[ENV2] accepts every type of the catalogue a harness may send", async () => {
    const runId = await startRun(server, ws);
    const r = await post(server, ws.token, {
      events: [runStatus(ws, runId), ev(ws, "run.step", { run_id: runId, step_id: "s1", state: "active" })],
    });
    expect(r.status).toBe(201);
    expect(r.body.events.map((e: any) => e.type)).toEqual(["run.status", "run.step"]);
  });
  it("[ENV2] refuses an unknown type with 422 unknown_type", async () => {
    const r = await post(server, ws.token, { ...message(ws, "x"), type: "run.exploded" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("unknown_type");
    expect(r.body.errors[0].pointer).toBe("/type");
  });
});

describe("[ENV3] event id", () => {
  it("[ENV3] the same id and body again is the stored event", async () => {
    const e = message(ws, "once");
    const a = await post(server, ws.token, e);
    const b = await post(server, ws.token, e);
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.text).toBe(a.text);
  });
  it("[ENV3] the same id with another body is 409 event_id_conflict", async () => {
    const e = message(ws, "first");
    expect((await post(server, ws.token, e)).status).toBe(201);
    const r = await post(server, ws.token, { ...e, idempotency_key: `${e.idempotency_key}-other`, text: "second" });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("event_id_conflict");
  });
  it("[ENV3] an id stored in another workspace is a conflict too", async () => {
    const other = await newWorkspace(server);
    const e = message(ws, "mine");
    expect((await post(server, ws.token, e)).status).toBe(201);
    const r = await post(server, other.token, { ...message(other, "theirs"), id: e.id });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("event_id_conflict");
  });
});

describe("[ENV4] ts is the server's", () => {
  it("[ENV4] a sent ts is replaced by the server's clock", async () => {
    const before = Date.now();
    const r = await post(server, ws.token, { ...message(ws, "t"), ts: "1999-01-01T00:00:00Z" });
    expect(r.status).toBe(201);
    const ts = Date.parse(r.body.events[0].ts);
    expect(ts).toBeGreaterThanOrEqual(before - 1000);
    expect(r.body.events[0].ts).not.toBe("1999-01-01T00:00:00Z");
  });
  it("[ENV4] an event without ts is stamped", async () => {
    const r = await post(server, ws.token, message(ws, "no ts"));
    expect(r.body.events[0].ts).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe("[ENV5] workspace of the credential", () => {
  it("[ENV5] accepts the credential's own workspace", async () => {
    expect((await post(server, ws.token, message(ws, "ok"))).status).toBe(201);
  });
  it("[ENV5] refuses another workspace with 403", async () => {
    const other = await newWorkspace(server);
    const r = await post(server, ws.token, { ...message(other, "x"), actor: { kind: "harness", id: ws.harness_id } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
  });
});

describe("[ENV6] space", () => {
  it("[ENV6] accepts a space of the workspace", async () => {
    expect((await post(server, ws.token, message(ws, "in room"))).status).toBe(201);
  });
  it("[ENV6] refuses an unknown space, or another workspace's, with 404 space_not_found", async () => {
    const other = await newWorkspace(server);
    for (const space_id of [newId("space"), other.space_id]) {
      const r = await post(server, ws.token, message(ws, "x", { space_id }));
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("space_not_found");
    }
  });
});

describe("[ENV7] run", () => {
  it("[ENV7] a type that requires a run is accepted with a run of the workspace", async () => {
    const runId = await startRun(server, ws);
    expect((await post(server, ws.token, runStatus(ws, runId))).status).toBe(201);
  });
  it("[ENV7] a type that requires a run, without run_id, is 422", async () => {
    const { run_id: _r, ...e } = runStatus(ws, newId("run"));
    const r = await post(server, ws.token, e);
    expect(r.status).toBe(422);
    expect(r.body.errors.map((x: any) => x.pointer)).toContain("/run_id");
  });
  it("[ENV7] naming an unknown run, or another workspace's, is 404 run_not_found", async () => {
    const other = await newWorkspace(server);
    const theirs = await startRun(server, other);
    for (const runId of [newId("run"), theirs]) {
      const r = await post(server, ws.token, runStatus(ws, runId));
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("run_not_found");
    }
  });
});

describe("[ENV8] seq", () => {
  it("[ENV8] seq is assigned gap-free from 1 per workspace, and a sent seq is ignored", async () => {
    const fresh = await newWorkspace(server);
    const r1 = await post(server, fresh.token, { ...message(fresh, "a"), seq: 999 });
    const r2 = await post(server, fresh.token, { events: [message(fresh, "b"), message(fresh, "c")] });
    expect(r1.body.events[0].seq).toBe(1);
    expect(r2.body.events.map((e: any) => e.seq)).toEqual([2, 3]);
    expect((await readEvents(server, fresh)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });
  it("[ENV8] workspaces count separately", async () => {
    const a = await newWorkspace(server);
    const b = await newWorkspace(server);
    await post(server, a.token, message(a, "a1"));
    const rb = await post(server, b.token, message(b, "b1"));
    expect(rb.body.events[0].seq).toBe(1);
  });
});

describe("[ENV9] idempotency key", () => {
  it("[ENV9] the same key twice is a no-op answered with the first stored event", async () => {
    const e = message(ws, "idem");
    const a = await post(server, ws.token, e);
    const b = await post(server, ws.token, e);
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body.events[0]).toEqual(a.body.events[0]);
  });
  it("[ENV9] the same key with another body is 409 idempotency_key_reused", async () => {
    const e = message(ws, "idem body");
    await post(server, ws.token, e);
    const r = await post(server, ws.token, { ...e, text: "changed" });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("idempotency_key_reused");
  });
  it("[ENV9] a key is required on client writes and at most 255 characters", async () => {
    const { idempotency_key: _k, ...noKey } = message(ws, "k");
    const r = await post(server, ws.token, noKey);
    expect(r.status).toBe(422);
    expect(r.body.errors[0].pointer).toBe("/idempotency_key");
    const long = await post(server, ws.token, message(ws, "k", { idempotency_key: "x".repeat(256) }));
    expect(long.status).toBe(422);
    expect((await post(server, ws.token, message(ws, "k", { idempotency_key: "y".repeat(255) }))).status).toBe(201);
  });
  it("[ENV9] keys are per workspace", async () => {
    const other = await newWorkspace(server);
    const e = message(ws, "shared key");
    await post(server, ws.token, e);
    const r = await post(server, other.token, message(other, "shared key", { idempotency_key: e.idempotency_key }));
    expect(r.status).toBe(201);
  });
});

describe("[ENV10] actor", () => {
  it("[ENV10] a harness acts as itself or as one of its agents", async () => {
    const agent = newId("agent");
    const r = await post(server, ws.token, {
      events: [message(ws, "me"), { ...message(ws, "my agent"), actor: { kind: "agent", id: agent } }],
    });
    expect(r.status).toBe(201);
    expect(r.body.events[1].actor).toEqual({ kind: "agent", id: agent, harness_id: ws.harness_id });
  });
  it("[ENV10] a harness cannot act as another harness, a person or the system", async () => {
    const second = await newHarness(server, ws);
    for (const actor of [
      { kind: "harness", id: second.harness_id },
      { kind: "person", id: ws.person_id },
      { kind: "system", id: "system" },
    ]) {
      const r = await post(server, ws.token, { ...message(ws, "x"), actor });
      expect(r.status, JSON.stringify(actor)).toBe(403);
    }
  });
  it("[ENV10] a person's actor is set by the server", async () => {
    const { actor: _a, ...e } = message(ws, "from a person");
    const r = await post(server, ws.person_token, e);
    expect(r.status).toBe(201);
    expect(r.body.events[0].actor).toEqual({ kind: "person", id: ws.person_id });
  });
  it("[ENV10] a credential may send only the types its kind may send", async () => {
    const runId = await startRun(server, ws);
    const cases = [
      { token: ws.token, e: ev(ws, "run.command", { run_id: runId, command_id: newId("command"), command: "pause" }) },
      { token: ws.token, e: ev(ws, "run.command_delivered", { run_id: runId, command_id: newId("command") }) },
      {
        token: ws.token,
        e: ev(ws, "runner.event", {
          run_id: runId,
          sequence: 1,
          kind: "log",
          message: "m",
          occurred_at: new Date().toISOString(),
        }),
      },
      { token: ws.person_token, e: { ...runStatus(ws, runId), actor: undefined } },
      {
        token: ws.person_token,
        e: {
          ...ev(ws, "run.command", { run_id: runId, command_id: newId("command"), command: "pause" }),
          actor: undefined,
        },
      },
    ];
    for (const c of cases) {
      const r = await post(server, c.token, c.e);
      expect(r.status, c.e.type).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
  });
  it("[ENV10] a runner may send runner.event", async () => {
    const runner = await newHarness(server, ws, "runner-1", "runner");
    const rws = { ...ws, token: runner.token, harness_id: runner.harness_id };
    const runId = await startRun(server, rws);
    const r = await post(
      server,
      runner.token,
      ev(rws, "runner.event", {
        run_id: runId,
        sequence: 1,
        kind: "started",
        message: "go",
        occurred_at: new Date().toISOString(),
        idempotency_key: undefined,
      }),
    );
    expect(r.status).toBe(201);
  });
});

describe("[ENV11] agents belong to the harness that first spoke for them", () => {
  it("[ENV11] a sent harness_id is replaced by the registry's", async () => {
    const agent = newId("agent");
    const r = await post(server, ws.token, {
      ...message(ws, "a"),
      actor: { kind: "agent", id: agent, harness_id: newId("harness") },
    });
    expect(r.status).toBe(201);
    expect(r.body.events[0].actor.harness_id).toBe(ws.harness_id);
  });
  it("[ENV11] another harness using that agent id is 403", async () => {
    const agent = newId("agent");
    const second = await newHarness(server, ws);
    expect((await post(server, ws.token, { ...message(ws, "mine"), actor: { kind: "agent", id: agent } })).status).toBe(
      201,
    );
    const r = await post(server, second.token, { ...message(ws, "stolen"), actor: { kind: "agent", id: agent } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
    // The first harness still speaks for it.
    expect(
      (await post(server, ws.token, { ...message(ws, "still mine"), actor: { kind: "agent", id: agent } })).status,
    ).toBe(201);
  });
  it("[ENV11] two harnesses claiming a new agent id in one batch window: only the first wins", async () => {
    const agent = newId("agent");
    const second = await newHarness(server, ws);
    const [a, b] = await Promise.all([
      post(server, ws.token, { ...message(ws, "1"), actor: { kind: "agent", id: agent } }),
      post(server, second.token, { ...message(ws, "2"), actor: { kind: "agent", id: agent } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 403]);
  });
});
