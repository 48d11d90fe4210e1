import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roomPageFor } from "../lib/server/pages/room";
import {
  ev,
  key,
  message,
  newWorkspace,
  post,
  request,
  runStatus,
  serverWithWorkspace,
  startRun,
  type Workspace,
} from "./support/api";
import { recordingFeed, until } from "./support/feed";
import { command } from "./support/harness";
import type { TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace()));
afterAll(() => server?.close());

/** A person's event (the server sets the actor). */
const asPerson = (type: string, fields: Record<string, unknown>) =>
  post(server, ws.person_token, { ...ev(ws, type, { space_id: ws.space_id, ...fields }), actor: undefined });

describe("[RT4] the room's snapshot is read once", () => {
  it("[RT4] the room page draws from the same snapshot a join far behind is sent: runs, receipts, room, decisions, tasks and the newest events", async () => {
    const runId = await startRun(server, ws);
    const writes = await Promise.all([
      post(server, ws.token, { events: [message(ws, "hello"), runStatus(ws, runId, { verb_phrase: "Reading" })] }),
      asPerson("room.updated", { revision: 1, intent: "Ship it", outcome: "Green" }),
      asPerson("decision.recorded", {
        decision_id: "dec-store",
        status: "active",
        title: "Postgres",
        text: "Because.",
      }),
      request(`${server.url}/api/v1/spaces/${ws.space_id}/tasks`, {
        method: "POST",
        token: ws.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Build", prompt: "Do it", repository: "demo", idempotency_key: key() }),
      }),
      command(server, ws, runId, "pause"),
    ]);
    for (const w of writes) expect(w.status, w.text).toBeLessThan(300);

    const page = await roomPageFor(server.chips.services, "member", ws.workspace_id, ws.space_id);
    // A join from past the room's head (a store reset under the client) is always sent the snapshot.
    const rec = recordingFeed(server.url, ws.space_id, { token: ws.person_token }, Number.MAX_SAFE_INTEGER);
    await until(() => rec.snapshots.length === 1, "the socket's snapshot");
    rec.feed.stop();
    const socket = rec.snapshots[0];

    // Nothing was written between the two reads, so they are equal whole — and they hold what was written.
    expect(page?.snapshot).toEqual(socket);
    expect(socket.runs.map((r) => r.id)).toEqual([runId]);
    expect(socket.receipts.map((r) => r.command)).toEqual(["pause"]);
    expect(socket.room).toMatchObject({ revision: 1, intent: "Ship it", outcome: "Green" });
    expect(socket.decisions.map((d) => d.title)).toEqual(["Postgres"]);
    expect(socket.tasks.map((t) => t.title)).toEqual(["Build"]);
    expect(socket.events.map((e) => e.type)).toContain("message.posted");
    expect(socket.head_seq).toBe(socket.events[socket.events.length - 1].seq);
  });

  it("[RT4] another workspace's room is no page", async () => {
    const other = await newWorkspace(server);
    expect(await roomPageFor(server.chips.services, "member", other.workspace_id, ws.space_id)).toBe(null);
    expect(await roomPageFor(server.chips.services, "member", ws.workspace_id, ws.space_id)).not.toBe(null);
  });
});
