import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { roomFromSnapshot } from "../lib/browser/room-state";
import { taskViews } from "../lib/core/projection/tasks";
import { key, newWorkspace, post, request, runStarted, type Workspace } from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
});
afterAll(() => server?.close());

const send = (ws: Workspace, path: string, body: unknown) =>
  request(`${server.url}/api/v1/spaces/${ws.space_id}/tasks${path}`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("[TSK2] a task's status on the board, whatever the room's history", () => {
  it("[TSK2] a room with more runs than a page: the room's snapshot still carries each task's newest run, so the board shows it running", async () => {
    const ws = await newWorkspace(server);
    const made = await send(ws, "", { title: "Late", prompt: "p", repository: "demo", idempotency_key: key() });
    expect(made.status, made.text).toBe(201);
    // 1,000 runs first (a page of the room's runs), then the task's.
    for (let b = 0; b < 2; b++) {
      const events = Array.from({ length: 500 }, () => runStarted(ws, newId("run"), { plan: [] }));
      const r = await post(server, ws.token, { events });
      expect(r.status, r.text).toBe(201);
    }
    const started = await send(ws, `/${made.body.task_id}/start`, { idempotency_key: key() });
    expect(started.status, started.text).toBe(201);
    const stored = (await request(`${server.url}/api/v1/spaces/${ws.space_id}/tasks`, { token: ws.token })).body.tasks;
    expect(stored.map((t: { status: string; run_id: string }) => [t.status, t.run_id])).toEqual([
      ["running", started.body.run_id],
    ]);
    // A browser joining from nothing gets the room's snapshot: its board must say the same.
    const live = recordingFeed(server.url, ws.space_id, { token: ws.person_token }, Number.MAX_SAFE_INTEGER);
    try {
      await until(() => live.snapshots.length > 0, "the room's snapshot");
      const s = live.snapshots[0];
      // As the room page folds it (components/room/room-view.tsx).
      const room = roomFromSnapshot(s.runs, s.events, s.receipts, s);
      expect(taskViews(room.tasks, Object.values(room.runs))).toEqual(stored);
      expect(s.runs.length).toBeGreaterThan(1000);
    } finally {
      live.feed.stop();
    }
  });
});
