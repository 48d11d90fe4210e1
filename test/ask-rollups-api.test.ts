import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type AskRollupRow, type ExportDocument } from "../lib/core/protocol";
import { REVIEW_ROUTES } from "../lib/core/routes";
import { askRollups } from "../lib/server/review/ask-stats";
import { ev, newWorkspace, post, request, runStarted, serverWithWorkspace, type Workspace } from "./support/api";
import { answer, ask, permission, question, readAsk } from "./support/asks";
import { type TestServer } from "./support/server";

/**
 * [ASKR7] Time to answer through the API, JSON and CSV. Asks are made and answered for real
 * in one workspace, exported, given known times (the fold reads each event's stored time)
 * and imported into another, whose rollup then has waits computed by hand here: the API's
 * numbers must be those and the page's own `askRollups` for the same rows. The person who
 * answered is named like a spreadsheet formula, which the CSV must defuse.
 */
let server: TestServer;
let source: Workspace;
let ws: Workspace;
let answerer: string;

const DAY1 = "2026-03-02";
const DAY2 = "2026-03-03";
/** The wait each answered ask is given (ms), by ask id. */
const waits = new Map<string, number>();
const NAME = '=HYPERLINK("http://evil.example","Ann, ok")';

const db = () => server.chips.services.db;
const get = (path: string) =>
  request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/review/rollups/asks${path}`, { token: ws.person_token });

async function started(asAgent = false) {
  const runId = newId("run");
  const e = runStarted(source, runId);
  const r = await post(server, source.token, asAgent ? { ...e, actor: { kind: "agent", id: newId("agent") } } : e);
  if (r.status !== 201) throw new Error(r.text);
  return runId;
}

async function answered(runId: string, askId: string, body: Record<string, unknown>, wait: number) {
  const r = await answer(server, runId, askId, body, { token: source.person_token });
  if (r.status !== 201) throw new Error(r.text);
  const applied = await post(
    server,
    source.token,
    ev(source, "run.answer_applied", { run_id: runId, ask_id: askId, result: "applied" }),
  );
  if (applied.status !== 201) throw new Error(applied.text);
  waits.set(askId, wait);
}

/**
 * The export's events given times: 100 ms apart in seq order, an answer exactly its wait after
 * its ask, and the last run (`day2Run`) moved to the next day.
 */
function retimed(doc: ExportDocument, day2Run: string): ExportDocument {
  const all = doc.runs.flatMap((r) => r.events).sort((a, b) => a.seq - b.seq);
  let clock = Date.parse(`${DAY1}T10:00:00.000Z`);
  const asked = new Map<string, number>();
  for (const e of all) {
    if (e.run_id === day2Run && clock < Date.parse(`${DAY2}T00:00:00.000Z`))
      clock = Date.parse(`${DAY2}T10:00:00.000Z`);
    clock += 100;
    const askId = e.ask_id as string;
    if (e.type === "run.asked") asked.set(askId, clock);
    if (e.type === "run.answered") {
      const at = asked.get(askId)! + waits.get(askId)!;
      if (at < clock) throw new Error("a wait shorter than the events between its ask and answer");
      clock = at;
    }
    e.ts = new Date(clock).toISOString();
  }
  return { ...doc, directory: { ...doc.directory, persons: { [source.person_id]: NAME } } };
}

beforeAll(async () => {
  ({ server, ws: source } = await serverWithWorkspace({ rateLimit: 0 }));
  // Day one: a permission and a question answered on a harness's run, a denial on an agent's, one expired.
  const one = await started();
  await answered(one, await ask(server, source, permission(source, one)), { decision: "allow" }, 1000);
  await answered(one, await ask(server, source, question(source, one)), { option_id: "pg" }, 4000);
  const agents = await started(true);
  await answered(agents, await ask(server, source, permission(source, agents)), { decision: "deny" }, 30_000);
  const late = await started();
  const expiring = await ask(server, source, permission(source, late, { expires_in_seconds: 1 }));
  for (let i = 0; i < 20; i++)
    if ((await readAsk(server, source.token, late, expiring, 5)).body.state === "closed") break;
  // Day two: one more answered.
  const two = await started();
  await answered(two, await ask(server, source, permission(source, two)), { decision: "allow" }, 7000);

  await server.chips.services.review.settle(source.workspace_id);
  const exported = await request(`${server.url}/api/v1/workspaces/${source.workspace_id}/review/export`, {
    token: source.person_token,
  });
  expect(exported.status, exported.text).toBe(200);
  ws = await newWorkspace(server);
  const imported = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/import`, {
    method: "POST",
    token: ws.person_token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(retimed(exported.body, two)),
  });
  expect(imported.status, imported.text).toBe(201);
  const rows = (await get("")).body.rows as AskRollupRow[];
  answerer = rows.find((r) => r.key !== null)!.key!;
}, 90_000);
afterAll(() => server?.close());

/** The page's figures for the same workspace and span: one grouping of its `askRollups`. */
async function pageRows(by: "person" | "agent", span: { from?: string; to?: string } = {}) {
  return (await askRollups(db(), ws.workspace_id, span)).rows[by];
}

describe("[ASKR7] time to answer through the API", () => {
  it("[ASKR7] JSON per person: the hand-computed median and p90 of the waits, the page's rows, the route's schema", async () => {
    const r = await get("?by=person");
    expect(r.status, r.text).toBe(200);
    expect(REVIEW_ROUTES.askRollups.answers[200].schema.safeParse(r.body).success).toBe(true);
    expect(r.body).toMatchObject({ by: "person", asks: 5, capped: false });
    // Waits 1000, 4000, 7000, 30000: median 4000 + 0.5 × 3000; p90 at rank 2.7: 7000 + 0.7 × 23000.
    expect(r.body.rows).toEqual([
      {
        key: answerer,
        count: 4,
        answered: 4,
        denied: 1,
        expired: 0,
        withdrawn: 0,
        waiting: 0,
        expired_share: 0,
        p50_ms: 5500,
        p90_ms: 23_100,
      },
      {
        key: null,
        count: 1,
        answered: 0,
        denied: 0,
        expired: 1,
        withdrawn: 0,
        waiting: 0,
        expired_share: 1,
        p50_ms: null,
        p90_ms: null,
      },
    ]);
    expect(r.body.rows).toEqual(await pageRows("person"));
    expect((await get("")).body).toEqual(r.body);
  });

  it("[ASKR7] JSON per agent, and a span of days by when each was asked, as the page reads them", async () => {
    const r = await get("?by=agent&format=json");
    expect(r.status, r.text).toBe(200);
    // The harness's runs: waits 1000, 4000, 7000 (median 4000, p90 at rank 1.8: 4000 + 0.8 × 3000) and the expired one.
    expect(
      r.body.rows.map((x: AskRollupRow) => [
        x.key === null ? null : "agent",
        x.count,
        x.denied,
        x.expired,
        x.p50_ms,
        x.p90_ms,
      ]),
    ).toEqual([
      [null, 4, 0, 1, 4000, 6400],
      ["agent", 1, 1, 0, 30_000, 30_000],
    ]);
    expect(r.body.rows).toEqual(await pageRows("agent"));

    const first = await get(`?by=person&from=${DAY1}&to=${DAY1}`);
    // Waits 1000, 4000, 30000: median 4000; p90 at rank 1.8: 4000 + 0.8 × 26000.
    expect(first.body.asks).toBe(4);
    expect(first.body.rows[0]).toMatchObject({ key: answerer, count: 3, p50_ms: 4000, p90_ms: 24_800 });
    expect(first.body.rows).toEqual(await pageRows("person", { from: DAY1, to: DAY1 }));
    const second = await get(`?by=person&from=${DAY2}`);
    expect(second.body.rows).toEqual([
      expect.objectContaining({ key: answerer, count: 1, p50_ms: 7000, p90_ms: 7000 }),
    ]);
    expect((await get(`?to=2026-03-01`)).body).toEqual({ by: "person", asks: 0, capped: false, rows: [] });
  });

  it("[ASKR7] CSV: one line a group with the person's name from the directory, a formula defused and quoted", async () => {
    const r = await get("?by=person&format=csv");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/csv");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="asks-by-person.csv"');
    // How many asks were read, and whether only the newest were, as the JSON says.
    const json = (await get("?by=person")).body;
    expect([r.headers.get("chips-asks-read"), r.headers.get("chips-asks-capped")]).toEqual([
      String(json.asks),
      String(json.capped),
    ]);
    expect(json.asks).toBe(5);
    expect(r.text).toBe(
      [
        "person,key,asks,answered,denied,expired,withdrawn,waiting,expired_share,p50_ms,p90_ms",
        `"'=HYPERLINK(""http://evil.example"",""Ann, ok"")",${answerer},4,4,1,0,0,0,0,5500,23100`,
        "nobody (unanswered),,1,0,0,1,0,0,1,,",
        "",
      ].join("\r\n"),
    );
    const agents = (await get(`?by=agent&format=csv&to=${DAY1}`)).text.split("\r\n");
    expect(agents[0]).toBe("agent,key,asks,answered,denied,expired,withdrawn,waiting,expired_share,p50_ms,p90_ms");
    expect(agents.slice(1, -1).map((l) => l.split(",").slice(2).join(","))).toEqual([
      // The harness's runs on day one: waits 1000 and 4000 (p90 at rank 0.9: 1000 + 0.9 × 3000) and the expired one.
      `3,2,0,1,0,0,${1 / 3},2500,3700`,
      "1,1,1,0,0,0,0,30000,30000",
    ]);
    expect(agents[1].startsWith("no agent named,,")).toBe(true);
  });

  it("[ASKR7] a bad grouping or day is a 422 naming the parameter", async () => {
    const r = await get("?by=room");
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toContain("/query/by");
    expect(JSON.stringify((await get("?from=2026-3-1")).body)).toContain("/query/from");
    expect(JSON.stringify((await get("?format=xlsx")).body)).toContain("/query/format");
  });
});
