import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ev, key, newHarness, newWorkspace, post, request, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { applyEvents, emptyRoom } from "../lib/browser/room-state";
import { taskViews } from "../lib/core/projection/tasks";
import { rawRunner } from "./support/raw-runner";
import { startTestServer, type TestServer } from "./support/server";

/** [TSK1]–[TSK4] a room's tasks over HTTP, against the real server and database. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const base = (ws: Workspace) => `${server.url}/api/v1/spaces/${ws.space_id}/tasks`;
const send = (ws: Workspace, method: string, url: string, body: unknown) =>
  request(url, {
    method,
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const make = (ws: Workspace, fields: Record<string, unknown> = {}) =>
  send(ws, "POST", base(ws), {
    title: "Build",
    prompt: "Do it",
    repository: "demo",
    idempotency_key: key(),
    ...fields,
  });
const edit = (ws: Workspace, id: string, fields: Record<string, unknown>) =>
  send(ws, "PUT", `${base(ws)}/${id}`, {
    title: "Build",
    prompt: "Do it",
    repository: "demo",
    idempotency_key: key(),
    ...fields,
  });
const start = (ws: Workspace, id: string, fields: Record<string, unknown> = {}) =>
  send(ws, "POST", `${base(ws)}/${id}/start`, { idempotency_key: key(), ...fields });
const tasks = async (ws: Workspace) => (await request(base(ws), { token: ws.token })).body.tasks as any[];
const statuses = async (ws: Workspace) => Object.fromEntries((await tasks(ws)).map((t) => [t.title, t.status]));

/** A runner of the workspace that takes its runs and finishes them as told. */
async function runnerOf(ws: Workspace) {
  const r = await newHarness(server, ws, "runner", "runner");
  const raw = await rawRunner(server.url, r.token);
  return {
    raw,
    async finish(runId: string, outcome: "succeeded" | "failed") {
      await raw.startFor(runId);
      const started = await post(
        server,
        r.token,
        ev(ws, "run.started", { space_id: ws.space_id, run_id: runId, goal: "g" }, r.harness_id),
      );
      expect(started.status, started.text).toBe(201);
      const done = await post(
        server,
        r.token,
        ev(ws, "run.finished", { run_id: runId, outcome, summary: "s" }, r.harness_id),
      );
      expect(done.status, done.text).toBe(201);
    },
  };
}

describe("[TSK1][TSK2] tasks: made, edited, listed with their status", () => {
  it("[TSK1] a task is made at prompt version 1; each edit of the prompt bumps it, other edits keep it; attributed", async () => {
    const ws = await newWorkspace(server);
    const made = await make(ws, { write_scope: ["src/**"] });
    expect(made.status, made.text).toBe(201);
    const id = made.body.task_id;
    expect((await edit(ws, id, { title: "Build it" })).status).toBe(201);
    expect((await edit(ws, id, { title: "Build it", prompt: "Do it well", prompt_version: 1 })).status).toBe(201);
    const [t] = await tasks(ws);
    expect(t).toMatchObject({
      task_id: id,
      title: "Build it",
      prompt: "Do it well",
      prompt_version: 2,
      write_scope: ["**"],
      status: "ready",
      actor: { kind: "person", id: ws.person_id },
    });
    const stale = await edit(ws, id, { prompt: "Mine", prompt_version: 1 });
    expect([stale.status, stale.body.code, stale.body.errors[0].pointer, stale.body.current.prompt]).toEqual([
      409,
      "revision_conflict",
      "/prompt_version",
      "Do it well",
    ]);
  });

  it("[TSK1] refusals are problem+json with the field, and store nothing: bad glob, unknown or cyclic prerequisite, unknown task", async () => {
    const ws = await newWorkspace(server);
    const a = (await make(ws, { title: "A" })).body.task_id;
    const b = (await make(ws, { title: "B", prerequisites: [a] })).body.task_id;
    const glob = await make(ws, { write_scope: ["../etc/**"] });
    expect([glob.status, glob.body.code, glob.body.errors[0].pointer]).toEqual([
      422,
      "validation_failed",
      "/write_scope/0",
    ]);
    const ghost = await make(ws, { prerequisites: ["tsk_01ARZ3NDEKTSV4RRFFQ69G5FAV"] });
    expect([ghost.status, ghost.body.errors[0].pointer]).toEqual([422, "/prerequisites/0"]);
    const cycle = await edit(ws, a, { title: "A", prerequisites: [b] });
    expect([cycle.status, cycle.body.errors[0].pointer]).toEqual([422, "/prerequisites"]);
    const missing = await edit(ws, "tsk_01ARZ3NDEKTSV4RRFFQ69G5FAV", {});
    expect([missing.status, missing.body.code]).toEqual([404, "task_not_found"]);
    expect((await tasks(ws)).map((t) => t.title)).toEqual(["A", "B"]);
  });

  it("[TSK2] status: waiting on an unmet prerequisite, ready, running, done, failed; a retry of a save is the same task; the browser's live room folds the same board", async () => {
    const ws = await newWorkspace(server);
    const runner = await runnerOf(ws);
    const live = recordingFeed(server.url, ws.space_id, { token: ws.person_token });
    try {
      const body = { title: "A", prompt: "p", repository: "demo", write_scope: ["a/**"], idempotency_key: key() };
      const a = await send(ws, "POST", base(ws), body);
      const again = await send(ws, "POST", base(ws), body);
      expect([a.status, again.status, again.body.task_id]).toEqual([201, 200, a.body.task_id]);
      const b = (await make(ws, { title: "B", prerequisites: [a.body.task_id], write_scope: ["b/**"] })).body.task_id;
      const c = (await make(ws, { title: "C", write_scope: ["c/**"] })).body.task_id;
      expect(await statuses(ws)).toEqual({ A: "ready", B: "waiting", C: "ready" });
      const runA = (await start(ws, a.body.task_id)).body.run_id;
      const runC = (await start(ws, c)).body.run_id;
      expect(await statuses(ws)).toEqual({ A: "running", B: "waiting", C: "running" });
      await runner.finish(runA, "succeeded");
      await runner.finish(runC, "failed");
      expect(await statuses(ws)).toEqual({ A: "done", B: "ready", C: "failed" });
      expect((await start(ws, b)).status).toBe(201);
      // The room page's fold of the live feed (lib/browser/room-state.ts) is the server's list.
      const stored = await tasks(ws);
      const board = () => {
        const room = applyEvents(emptyRoom(ws.workspace_id, ws.space_id), live.events);
        return taskViews(room.tasks, Object.values(room.runs));
      };
      await until(
        () =>
          board()
            .map((t) => t.status)
            .join() === stored.map((t) => t.status).join(),
        "the live board catches up",
      );
      expect(board()).toEqual(stored);
    } finally {
      live.feed.stop();
      runner.raw.close();
    }
  });
});

describe("[TSK3][TSK4] starting a task", () => {
  it("[TSK3] the start request freezes the room's revision, intent, outcome, active decisions, scope, prerequisites and prompt version — also after the room changes", async () => {
    const ws = await newWorkspace(server);
    const person = (type: string, fields: Record<string, unknown>) =>
      post(server, ws.person_token, { ...ev(ws, type, { space_id: ws.space_id, ...fields }), actor: undefined });
    expect((await person("room.updated", { revision: 1, intent: "Ship v1", outcome: "Tests green" })).status).toBe(201);
    expect(
      (await person("decision.recorded", { decision_id: "d1", title: "Use PG", text: "One store.", status: "active" }))
        .status,
    ).toBe(201);
    const pre = (await make(ws, { title: "Pre", write_scope: ["pre/**"] })).body.task_id;
    const runner = await runnerOf(ws);
    try {
      await runner.finish((await start(ws, pre)).body.run_id, "succeeded");
      const id = (
        await make(ws, { title: "Main", prompt: "v1", write_scope: ["src/**", "docs/*.md"], prerequisites: [pre] })
      ).body.task_id;
      expect(
        (
          await edit(ws, id, {
            title: "Main",
            prompt: "v2",
            write_scope: ["src/**", "docs/*.md"],
            prerequisites: [pre],
          })
        ).status,
      ).toBe(201);
      const started = await start(ws, id);
      expect(started.status, started.text).toBe(201);
      expect((await person("room.updated", { revision: 2, intent: "Changed since" })).status).toBe(201);
      const req = await runner.raw.startFor(started.body.run_id);
      const frozen = {
        task_id: id,
        room: { revision: 1, intent: "Ship v1", outcome: "Tests green" },
        decisions: [{ decision_id: "d1", title: "Use PG", text: "One store." }],
        write_scope: ["src/**", "docs/*.md"],
        prerequisites: [pre],
        prompt: { text: "v2", version: 2 },
      };
      expect(req).toMatchObject(frozen);
      const run = (await request(`${server.url}/api/v1/runs/${started.body.run_id}`, { token: ws.token })).body;
      expect((run.run ?? run).request.task).toEqual(frozen);
    } finally {
      runner.raw.close();
    }
  });

  it("[TSK3] a task whose prerequisite has not succeeded is refused 409 prerequisites_unmet, naming it; nothing queued", async () => {
    const ws = await newWorkspace(server);
    const pre = (await make(ws, { title: "Pre", write_scope: ["pre/**"] })).body.task_id;
    const id = (await make(ws, { title: "Then", prerequisites: [pre] })).body.task_id;
    const r = await start(ws, id);
    expect([r.status, r.headers.get("content-type"), r.body.code, r.body.unmet]).toEqual([
      409,
      "application/problem+json",
      "prerequisites_unmet",
      [pre],
    ]);
    expect(await statuses(ws)).toEqual({ Pre: "ready", Then: "waiting" });
  });

  it("[TSK4] a write scope overlapping a running task's is refused 409 scope_overlap; confirmed, it starts and the run records the override", async () => {
    const ws = await newWorkspace(server);
    const a = (await make(ws, { title: "A", write_scope: ["src/**"] })).body.task_id;
    const b = (await make(ws, { title: "B", write_scope: ["src/lib/x.ts"] })).body.task_id;
    const c = (await make(ws, { title: "C", write_scope: ["docs/**"] })).body.task_id;
    expect((await start(ws, a)).status).toBe(201);
    expect((await start(ws, c)).status).toBe(201);
    const refused = await start(ws, b);
    expect([
      refused.status,
      refused.body.code,
      refused.body.errors[0].pointer,
      refused.body.overlaps.map((o: any) => o.task_id),
    ]).toEqual([409, "scope_overlap", "/override_overlap", [a]]);
    const over = await start(ws, b, { override_overlap: true });
    expect(over.status, over.text).toBe(201);
    const queued = over.body.events.find((e: any) => e.type === "run.queued");
    expect(queued.request.task.override).toEqual({ overlaps: [a], by: ws.person_id });
  });

  it("[TSK4] an auto-start task starts by itself when its prerequisite succeeds", async () => {
    const ws = await newWorkspace(server);
    const runner = await runnerOf(ws);
    try {
      const pre = (await make(ws, { title: "Pre", write_scope: ["pre/**"] })).body.task_id;
      const then = (await make(ws, { title: "Then", write_scope: ["then/**"], prerequisites: [pre], auto_start: true }))
        .body.task_id;
      await runner.finish((await start(ws, pre)).body.run_id, "succeeded");
      let view: any;
      await until(
        async () => (view = (await tasks(ws)).find((t) => t.task_id === then)).status === "running",
        "the auto-start task runs",
      );
      const req = await runner.raw.startFor(view.run_id);
      expect(req).toMatchObject({ task_id: then, prerequisites: [pre], write_scope: ["then/**"] });
    } finally {
      runner.raw.close();
    }
  });
});
