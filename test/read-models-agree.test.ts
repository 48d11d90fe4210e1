import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RoomFeed, type FeedStatus } from "../lib/browser/room-feed";
import { applyEvents, emptyRoom, type RoomState } from "../lib/browser/room-state";
import { taskViews } from "../lib/core/projection/tasks";
import { runLogOf } from "../lib/core/review/run-log";
import { loadRunLog } from "../lib/server/queries/run-log";
import { newHarness, newWorkspace, readEvents, request, type Workspace } from "./support/api";
import { SequenceWorld } from "./support/event-sequences";
import { Sequence, type Intent } from "./support/intents";
import { until } from "./support/feed";
import { rawRunner } from "./support/raw-runner";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** Run a sequence against a fresh workspace; answer the three views of every run it made. */
async function threeViews(intents: Intent[]) {
  const ws: Workspace = await newWorkspace(server);
  const made = await newHarness(server, ws, "runner", "runner");
  const raw = await rawRunner(server.url, made.token);
  // The browser: a real Socket.IO client through the room feed, folding with the room's state.
  let live: RoomState = emptyRoom(ws.workspace_id, ws.space_id);
  let status: FeedStatus = "connecting";
  const feed = new RoomFeed({
    url: server.url,
    spaceId: ws.space_id,
    token: ws.person_token,
    onEvents: (es) => (live = applyEvents(live, es)),
    onStatus: (s) => (status = s),
  });
  try {
    await until(() => status === "live", "the room feed is live");
    const world = new SequenceWorld(server, ws, { id: made.harness_id, token: made.token, raw });
    for (const intent of intents) await world.apply(intent);
    await world.settle();
    // The log as the catch-up API serves it, folded from scratch (a replay).
    const log = await readEvents(server, ws, 0, 1000, ws.token);
    const replay = applyEvents(emptyRoom(ws.workspace_id, ws.space_id), log);
    const head = log.length ? log[log.length - 1].seq : 0;
    await until(() => feed.lastSeq >= head, `the live room reaches seq ${head}`);
    const views = [];
    for (const id of world.runIds) {
      const run = (await request(`${server.url}/api/v1/runs/${id}`, { token: ws.token })).body;
      const receipts = (await request(`${server.url}/api/v1/runs/${id}/commands`, { token: ws.token })).body.commands;
      const asks = (await request(`${server.url}/api/v1/runs/${id}/asks`, { token: ws.token })).body.asks;
      // [TOOL4] The run page's calls: folded from the log's windows (as the page reads them) and from the whole log.
      const own = log.filter((e) => e.run_id === id);
      views.push({
        id,
        stored: { run, receipts, asks },
        live: { run: live.runs[id], receipts: live.receipts[id] ?? [], asks: live.asks[id] ?? [] },
        replay: { run: replay.runs[id], receipts: replay.receipts[id] ?? [], asks: replay.asks[id] ?? [] },
        page: {
          windowed: (await loadRunLog(server.chips.services.db, id, receipts)).calls,
          whole: runLogOf(own, receipts).calls,
        },
      });
    }
    const room = (await request(`${server.url}/api/v1/spaces/${ws.space_id}/room`, { token: ws.token })).body.room;
    const history = (await request(`${server.url}/api/v1/spaces/${ws.space_id}/revisions`, { token: ws.token })).body
      .revisions;
    const decided = (await request(`${server.url}/api/v1/spaces/${ws.space_id}/decisions`, { token: ws.token })).body
      .decisions;
    const byId = (ds: any[]) => Object.fromEntries(ds.map((d) => [d.decision_id, d]));
    const tasks = (await request(`${server.url}/api/v1/spaces/${ws.space_id}/tasks`, { token: ws.token })).body.tasks;
    return {
      tasks: {
        stored: tasks,
        live: taskViews(live.tasks, Object.values(live.runs)),
        replay: taskViews(replay.tasks, Object.values(replay.runs)),
        made: world.tasks.tasks.map((t) => t.id),
      },
      runs: views,
      room: {
        stored: room,
        live: live.room,
        replay: replay.room,
        newest: history.at(-1) ?? room,
        saved: world.room.revision,
      },
      decisions: {
        stored: byId(decided),
        live: live.decisions,
        replay: replay.decisions,
        active: [...world.room.decisions]
          .filter(([, a]) => a)
          .map(([id]) => id)
          .sort(),
      },
    };
  } finally {
    feed.stop();
    raw.close();
  }
}

describe("[RUN1][UI1][UI5][RN2][ROOM1][DEC1][TSK1][TSK2][TSK3][TOOL4][ASK4] one projection: stored read models, the live room and a replay of the log agree", () => {
  it("[RUN1][UI1][UI5][RN2][ROOM1][DEC1][TSK1][TSK2][TSK3][TOOL4][ASK4] for any legal sequence of runs, plans, steps, statuses, commands, receipts, runner events, tool calls, finishes, room saves, decisions, tasks, task starts, asks and answers", async () => {
    await fc.assert(
      fc.asyncProperty(Sequence, async (intents) => {
        const views = await threeViews(intents);
        expect(views.room.live, "live room vs replay: intent and outcome").toEqual(views.room.replay);
        expect(views.room.live, "live room vs GET /api/v1/spaces/:space/room").toEqual(views.room.stored);
        expect(views.room.stored, "the current revision is the history's newest").toEqual(views.room.newest);
        expect(views.room.stored.revision).toBe(views.room.saved);
        expect(views.decisions.live, "live room vs replay: decisions").toEqual(views.decisions.replay);
        expect(views.decisions.live, "live room vs GET /api/v1/spaces/:space/decisions").toEqual(
          views.decisions.stored,
        );
        expect(
          Object.values(views.decisions.stored)
            .filter((d: any) => d.status === "active")
            .map((d: any) => d.decision_id)
            .sort(),
        ).toEqual(views.decisions.active);
        expect(views.tasks.live, "live board vs replay: tasks and their status").toEqual(views.tasks.replay);
        expect(views.tasks.live, "live board vs GET /api/v1/spaces/:space/tasks").toEqual(views.tasks.stored);
        expect(views.tasks.stored.map((t: any) => t.task_id)).toEqual(views.tasks.made);
        for (const v of views.runs) {
          expect(v.live, `live room vs replay of the log, run ${v.id}`).toEqual(v.replay);
          expect(v.live.run, `live room vs GET /api/v1/runs/${v.id}`).toEqual(v.stored.run);
          expect(v.live.receipts, `live room vs GET /api/v1/runs/${v.id}/commands`).toEqual(v.stored.receipts);
          expect(v.live.asks, `live room vs GET /api/v1/runs/${v.id}/asks`).toEqual(v.stored.asks);
          // [TOOL4] the run page lists each call under the step whose count, failures and time the read model keeps.
          expect(v.page.windowed, `run page's calls, windowed vs whole log, run ${v.id}`).toEqual(v.page.whole);
          const run = v.stored.run;
          const calls = v.page.whole.list;
          for (const s of run.plan) {
            const mine = calls.filter((c: any) => c.step_id === s.step_id);
            expect(mine.length, `calls under ${s.step_id}`).toBe(s.tools?.count ?? 0);
            expect(mine.filter((c: any) => c.outcome === "failed").length).toBe(s.tools?.failed ?? 0);
            expect(mine.reduce((n: number, c: any) => n + (c.duration_ms ?? 0), 0)).toBe(s.tools?.ms ?? 0);
          }
          expect(calls.length).toBe(run.tools?.count ?? 0);
          expect(calls.filter((c: any) => c.outcome === "failed").length).toBe(run.tools?.failed ?? 0);
        }
      }),
      { numRuns: 25 },
    );
  });
});
