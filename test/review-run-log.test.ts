import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Receipt, StoredEvent } from "../lib/core/protocol";
import { loadRunLog } from "../lib/server/queries/run-log";
import { runEventBodies } from "../lib/server/queries/review";
import { receiptsOf } from "../lib/server/queries/runs";
import { LOG_PAGE, runLogOf } from "../lib/core/review/run-log";
import { seedHistory } from "../lib/dev/history";
import { newWorkspace, request, type Workspace } from "./support/api";
import { startTestServer, type TestServer } from "./support/server";

/**
 * [REV3] The run page reads a run's log in windows: what it draws from the windowed reads
 * is what the whole log says (the same `runLogOf` over every event), and "show more"
 * (`GET /api/v1/runs/:run/events`) pages a section to its end with nothing lost or doubled.
 */
let server: TestServer;
let a: Workspace;
let b: Workspace;
let ids: string[];

const get = (ws: Workspace, path: string) => request(`${server.url}${path}`, { token: ws.person_token });
const whole = async (id: string) =>
  (await runEventBodies(server.chips.services.db, id)).map((x) => JSON.parse(x) as StoredEvent);

beforeAll(async () => {
  server = await startTestServer();
  a = await newWorkspace(server);
  b = await newWorkspace(server);
  // Runs of ~150–230 events, most of them statuses: more than one page of them.
  const r = await request(`${server.url}/api/v1/workspaces/${a.workspace_id}/import`, {
    method: "POST",
    token: a.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(seedHistory({ runs: 2, events: 900, seed: 3 }).doc),
  });
  expect(r.status, r.text).toBe(201);
  ids = (r.body.runs as { to: string }[]).map((x) => x.to);
}, 120_000);
afterAll(() => server?.close());

describe("[REV3] the run page's log in windows", () => {
  it("[REV3] the windowed reads answer what the whole log does: head events, first pages, each command's window and count", async () => {
    const db = server.chips.services.db;
    let paged = 0;
    for (const id of ids) {
      const receipts: Receipt[] = await receiptsOf(db, [id]);
      expect(receipts.length).toBeGreaterThan(0);
      const log = await loadRunLog(db, id, receipts);
      expect(log).toEqual(runLogOf(await whole(id), receipts));
      expect(log.head.some((e) => e.type === "run.started")).toBe(true);
      if (log.sections.statuses.next !== null) {
        paged++;
        expect(log.sections.statuses.events).toHaveLength(LOG_PAGE);
      }
    }
    expect(paged, "a run has more statuses than one page").toBeGreaterThan(0);
  });

  it("[REV3] GET …/events pages a section to its end in seq order; bad parameters are 422; another workspace gets 404", async () => {
    const id = ids[0];
    const all = await whole(id);
    const seen: StoredEvent[] = [];
    let after = 0;
    for (;;) {
      const r = await get(a, `/api/v1/runs/${id}/events?type=run.status&after=${after}&limit=40`);
      expect(r.status, r.text).toBe(200);
      seen.push(...(r.body.events as StoredEvent[]));
      if (r.body.next === null) break;
      expect(r.body.events).toHaveLength(40);
      after = r.body.next as number;
    }
    expect(seen).toEqual(all.filter((e) => e.type === "run.status"));
    const untyped = await get(a, `/api/v1/runs/${id}/events?limit=1000`);
    expect(untyped.body.events).toEqual(all);
    expect(untyped.body.next).toBeNull();

    for (const [q, pointer] of [
      ["type=run.nope", "/query/type"],
      ["limit=0", "/query/limit"],
      ["limit=1001", "/query/limit"],
      ["after=-1", "/query/after"],
    ]) {
      const r = await get(a, `/api/v1/runs/${id}/events?${q}`);
      expect(r.status, q).toBe(422);
      expect(JSON.stringify(r.body), q).toContain(pointer);
    }
    expect((await get(b, `/api/v1/runs/${id}/events`)).status).toBe(404);
  });
});
