import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  message,
  newWorkspace,
  post,
  readEvents,
  request,
  runStarted,
  serverWithWorkspace,
  type Workspace,
} from "./support/api";
import type { TestServer } from "./support/server";
import { unstorableTextAt } from "../lib/core/protocol/unicode";

/**
 * [HTTP4] JSON may escape half of a surrogate pair (`"\ud83d"`); such text is not Unicode
 * and PostgreSQL's json refuses it, so on the way to the store it made a 500. The body is
 * refused where it is parsed — `400 invalid_json` at the field — and nothing is stored.
 * JSON.stringify writes a lone surrogate as exactly that escape. U+0000 (`"\u0000"`) is Unicode
 * but PostgreSQL's text and jsonb cannot hold it: the same, at its field.
 */
let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

describe("[HTTP4] text must be Unicode: half a surrogate pair is refused at its field", () => {
  it.each([
    [
      "a run's goal ending in a high half",
      (w: Workspace) => runStarted(w, undefined, { goal: "Ship it \ud83d" }),
      "/goal",
    ],
    ["a message that is a low half alone", (w: Workspace) => message(w, "\ude00 hi"), "/text"],
    [
      "a step title inside a batch",
      (w: Workspace) => ({
        events: [message(w, "fine"), runStarted(w, undefined, { plan: [{ step_id: "s", title: "x\udbff" }] })],
      }),
      "/events/1/plan/0/title",
    ],
  ])("%s: 400 invalid_json at %s, nothing stored", async (_name, build, pointer) => {
    const before = (await readEvents(server, ws)).length;
    const r = await post(server, ws.token, build(ws));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_json");
    expect(r.body.errors).toEqual([expect.objectContaining({ pointer: expect.stringContaining(pointer) })]);
    expect((await readEvents(server, ws)).length).toBe(before);
  });

  it("a whole pair, escaped or not, is text like any other", async () => {
    const escaped = JSON.stringify(runStarted(ws)).replace('"Ship the thing"', '"Ship \\ud83d\\ude00"');
    const r = await post(server, ws.token, escaped);
    expect(r.status).toBe(201);
    expect(r.body.events[0].goal).toBe("Ship 😀");
    expect((await post(server, ws.token, message(ws, "Ship 😀"))).status).toBe(201);
  });

  it("every JSON body of the API is checked, not only events (a room's name)", async () => {
    const other = await newWorkspace(server);
    const r = await request(`${server.url}/api/v1/workspaces/${other.workspace_id}/spaces`, {
      method: "POST",
      token: other.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "room \ud800" }),
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].pointer).toBe("/name");
  });
});

describe("[HTTP4] text the store cannot hold: U+0000 is refused at its field", () => {
  it.each([
    ["a run's goal", (w: Workspace) => runStarted(w, undefined, { goal: "Ship \u0000it" }), "/goal"],
    ["an idempotency key", (w: Workspace) => message(w, "hi", { idempotency_key: "k-\u0000" }), "/idempotency_key"],
    [
      "a key of an object in a batch",
      (w: Workspace) => ({ events: [message(w, "fine"), runStarted(w, undefined, { "\u0000": 1 })] }),
      "/events/1/",
    ],
  ])("%s: 400 invalid_json naming U+0000, nothing stored", async (_name, build, pointer) => {
    const before = (await readEvents(server, ws)).length;
    const r = await post(server, ws.token, build(ws));
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe("invalid_json");
    expect(r.body.detail).toMatch(/U\+0000/);
    expect(r.body.errors).toEqual([expect.objectContaining({ pointer: expect.stringContaining(pointer) })]);
    expect((await readEvents(server, ws)).length).toBe(before);
  });

  it("the six characters \\u0000 (an escaped backslash, then u0000) are ordinary text", async () => {
    const r = await post(server, ws.token, message(ws, "C strings end in \\u0000"));
    expect(r.status, r.text).toBe(201);
    expect(r.body.events[0].text).toBe("C strings end in \\u0000");
  });

  it("the admin's and an owner's JSON bodies too: a workspace's, a room's and a harness's name", async () => {
    const other = await newWorkspace(server);
    for (const [url, token, body] of [
      [`${server.url}/api/v1/admin/workspaces`, server.adminToken, { workspace: "team \u0000" }],
      [`${server.url}/api/v1/workspaces/${other.workspace_id}/spaces`, other.person_token, { name: "room \u0000" }],
      [`${server.url}/api/v1/workspaces/${other.workspace_id}/harnesses`, server.adminToken, { name: "\u0000" }],
    ] as const) {
      const r = await request(url, {
        method: "POST",
        token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(r.status, `${url}: ${r.text}`).toBe(400);
      expect(r.body.errors[0].pointer).toBe(`/${Object.keys(body)[0]}`);
    }
  });
});

describe("[HTTP4] a refusal that quotes what was sent never splits a character", () => {
  it("an actor.kind of emoji claimed by a harness: 403 whose detail quotes it whole characters only", async () => {
    const r = await post(server, ws.token, message(ws, "hi", { actor: { kind: `a${"😀".repeat(15)}`, id: "x" } }));
    expect(r.status, r.text).toBe(403);
    expect(r.body.detail).toContain("a😀😀");
    expect(unstorableTextAt(r.body.detail)).toBeNull();
  });
});
