import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, type Ask, type StoredEvent } from "../lib/core/protocol";
import { askTally, quantile, waitMs } from "../lib/core/review/asks";
import { runLogOf } from "../lib/core/review/run-log";
import { askRollups } from "../lib/server/review/ask-stats";
import { openShare } from "../lib/server/review/shares";
import { loadRunLog } from "../lib/server/queries/run-log";
import { runEventBodies } from "../lib/server/queries/review";
import { receiptsOf } from "../lib/server/queries/runs";
import { ev, newWorkspace, post, request, runStarted, serverWithWorkspace, type Workspace } from "./support/api";
import { answer, ask, permission, question, readAsk } from "./support/asks";
import { type TestServer } from "./support/server";
import { foundRuns } from "./support/search";

/**
 * Asks where people look back (docs/REVIEW.md): the run page's asks section reads what the
 * log says [ASKR1]; an export carries the asks and an import into another workspace shows
 * the same section [ASKR4]; search finds runs by what they asked and how it ended, also
 * runs indexed before the ask words existed [ASKR5]; rollups of time to answer per person
 * and per agent [ASKR6].
 */
let server: TestServer;
let ws: Workspace;
const runs: Record<string, string> = {};
const agent = newId("agent");

const db = () => server.chips.services.db;
const whole = async (id: string) => (await runEventBodies(db(), id)).map((x) => JSON.parse(x) as StoredEvent);
const owner = () => ({ token: ws.person_token });

async function started(name: string, goal: string, asAgent = false) {
  const runId = newId("run");
  const e = runStarted(ws, runId, { goal });
  const r = await post(server, ws.token, asAgent ? { ...e, actor: { kind: "agent", id: agent } } : e);
  if (r.status !== 201) throw new Error(r.text);
  runs[name] = runId;
  return runId;
}

async function harness(type: string, fields: Record<string, unknown>) {
  const r = await post(server, ws.token, ev(ws, type, fields));
  if (r.status !== 201) throw new Error(`${type}: ${r.status} ${r.text}`);
}

async function answered(runId: string, askId: string, body: Record<string, unknown>) {
  const r = await answer(server, runId, askId, body, owner());
  if (r.status !== 201) throw new Error(r.text);
  await harness("run.answer_applied", { run_id: runId, ask_id: askId, result: "applied" });
}

beforeAll(async () => {
  ({ server, ws } = await serverWithWorkspace({ rateLimit: 0 }));
  // Asked to clean the build, allowed for the run; then a question answered with an option.
  const deploy = await started("deploy", "Deploy the site");
  const rm = await ask(server, ws, permission(ws, deploy, { summary: "rm -rf build/", command: "rm -rf build/" }));
  await answered(deploy, rm, { decision: "allow_for_run" });
  const q = await ask(server, ws, question(ws, deploy));
  await answered(deploy, q, { option_id: "pg" });
  await harness("run.finished", { run_id: deploy, outcome: "succeeded" });
  // An agent's force push, denied with a note.
  const push = await started("denied", "Publish the branch", true);
  const p = await ask(
    server,
    ws,
    permission(ws, push, { tool: "Bash", summary: "git push --force", command: "git push --force origin main" }),
  );
  await answered(push, p, { decision: "deny", note: "never force-push main" });
  // Nobody answers: Chips closes it at its expiry with the agent's default ([ASK6]).
  const late = await started("expired", "Fetch the feed");
  const c = await ask(
    server,
    ws,
    permission(ws, late, {
      summary: "curl https://example.com/feed",
      command: "curl https://example.com/feed",
      paths: [],
      expires_in_seconds: 1,
    }),
  );
  for (let i = 0; i < 20; i++) {
    const r = await readAsk(server, ws.token, late, c, 5);
    if (r.body.state === "closed") break;
  }
  // Talks of it, asked nothing.
  await started("talker", "Should we rm -rf build?");
}, 90_000);
afterAll(() => server?.close());

const asksOf = async (ws: Workspace, id: string) =>
  (await request(`${server.url}/api/v1/runs/${id}/asks`, { token: ws.token })).body.asks as Ask[];

describe("[ASKR1] the run page's asks", () => {
  it("[ASKR1] the page's asks are the read model's, and the same as the log folds them (a share link's view)", async () => {
    for (const id of Object.values(runs)) {
      const receipts = await receiptsOf(db(), [id]);
      const log = await loadRunLog(db(), id, receipts);
      expect(log.asks).toEqual(runLogOf(await whole(id), receipts).asks);
      expect(log.asks).toEqual(await asksOf(ws, id));
    }
    const [rm, q] = (await loadRunLog(db(), runs.deploy, [])).asks;
    expect(rm).toMatchObject({
      state: "applied",
      request: { kind: "permission", tool: "Bash", summary: "rm -rf build/" },
      answer: { person_id: ws.person_id, decision: "allow_for_run", scope: "Bash" },
    });
    expect(q).toMatchObject({ state: "applied", request: { kind: "question" }, answer: { option_id: "pg" } });
    expect(askTally([rm, q])).toMatchObject({ count: 2, answered: 2, denied: 0, expired: 0 });
    const [closed] = (await loadRunLog(db(), runs.expired, [])).asks;
    expect(closed).toMatchObject({ state: "closed", closed_reason: "expired", applied_default: "deny", answer: null });
    expect((await loadRunLog(db(), runs.talker, [])).asks).toEqual([]);
  });

  it("[ASKR1] a share link's view has the asks of its range, as they stood at the range's end, also when it begins after the run did", async () => {
    const [rm, q] = await asksOf(ws, runs.deploy);
    const shared = async (range: Record<string, number>) => {
      const r = await request(`${server.url}/api/v1/runs/${runs.deploy}/shares`, {
        method: "POST",
        token: ws.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(range),
      });
      expect(r.status, r.text).toBe(201);
      const token = new URL(r.body.url).searchParams.get("token")!;
      return (await openShare(server.chips.services, token, { address: null, userAgent: "vitest" }))!.asks;
    };
    // The whole run: its asks as the read model has them.
    expect(await shared({})).toEqual([rm, q]);
    // From the question on (after the run's start), up to its answer: the question, answered, not yet applied.
    const from = (await shared({ from_seq: q.seq, to_seq: q.answer!.seq })).map((a) => [a.ask_id, a.state]);
    expect(from).toEqual([[q.ask_id, "answered"]]);
    // Up to before the first answer: the first ask waits, the question is not asked yet.
    expect((await shared({ to_seq: rm.answer!.seq - 1 })).map((a) => [a.ask_id, a.answer])).toEqual([
      [rm.ask_id, null],
    ]);
  });
});

describe("[ASKR4] export and import carry the asks", () => {
  it("[ASKR4] a run exported and imported into another workspace shows the same asks: requests, answers, times, receipts", async () => {
    const ids = [runs.deploy, runs.denied, runs.expired];
    const doc = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/review/export?format=json`, {
      token: ws.token,
    });
    expect(doc.status, doc.text).toBe(200);
    const b = await newWorkspace(server);
    const imported = await request(`${server.url}/api/v1/workspaces/${b.workspace_id}/import`, {
      method: "POST",
      token: b.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...doc.body, runs: doc.body.runs.filter((r: any) => ids.includes(r.run.id)) }),
    });
    expect(imported.status, imported.text).toBe(201);
    const to = Object.fromEntries((imported.body.runs as { from: string; to: string }[]).map((r) => [r.from, r.to]));
    // What the section draws, without the ids and seqs an import maps.
    const drawn = (a: Ask) => ({
      request: a.request,
      state: a.state,
      created_at: a.created_at,
      expires_at: a.expires_at,
      shown_via: a.shown_via,
      answer: a.answer && { ...a.answer, person_id: undefined, seq: undefined },
      wait: waitMs(a),
      reason: a.reason,
      closed_reason: a.closed_reason,
      applied_default: a.applied_default,
      settled_at: a.settled_at,
    });
    for (const id of ids) {
      const source = (await loadRunLog(db(), id, [])).asks;
      const copy = (await loadRunLog(db(), to[id], [])).asks;
      expect(copy.length).toBeGreaterThan(0);
      expect(copy.map(drawn)).toEqual(source.map(drawn));
      expect(copy.every((a) => a.run_id === to[id] && a.workspace_id === b.workspace_id)).toBe(true);
      expect(copy.map((a) => a.ask_id)).not.toEqual(source.map((a) => a.ask_id));
    }
    // Who answered keeps their name in the new workspace.
    const names = await request(`${server.url}/api/v1/workspaces/${b.workspace_id}/people`, { token: b.person_token });
    const [answeredBy] = (await loadRunLog(db(), to[runs.denied], [])).asks.map((a) => a.answer!.person_id);
    const source = await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/people`, {
      token: ws.person_token,
    });
    const nameIn = (r: typeof names, id: string) =>
      (r.body.people ?? r.body).find((p: { id: string; name: string }) => p.id === id)?.name;
    expect(nameIn(names, answeredBy)).toBe(nameIn(source, ws.person_id));
  });
});

const found = (q: string) => foundRuns(server, ws, runs, q);

describe("[ASKR5] runs found by their asks", () => {
  it('[ASKR5] asked:WORD and asked:"A B" find the runs that asked it, not one that only said it; ask:, denied:ask, expired:ask', async () => {
    expect(await found("asked:rm")).toEqual(["deploy"]);
    expect(await found("rm build")).toEqual(["deploy", "talker"]);
    expect(await found('asked:"git push"')).toEqual(["denied"]);
    expect(await found('asked:"push git"')).toEqual([]);
    expect(await found("ask:question")).toEqual(["deploy"]);
    expect(await found("ask:permission")).toEqual(["denied", "deploy", "expired"]);
    expect(await found("denied:ask")).toEqual(["denied"]);
    expect(await found("expired:ask")).toEqual(["expired"]);
    expect(await found("publish denied:ask")).toEqual(["denied"]);
  });

  it("[ASKR5] runs indexed before the ask words existed get them from the reindex the migration starts", async () => {
    const d = db();
    // The index as an older build left it: no ask words in any run's document.
    await d.execute(
      sql`update run_index set doc = array_to_tsvector(array[]::text[]) where workspace_id = ${ws.workspace_id}`,
    );
    expect(await found("asked:rm")).toEqual([]);
    const file = path.join(import.meta.dirname, "../db/migrations/0021_asks_review.sql");
    for (const statement of fs.readFileSync(file, "utf8").split("--> statement-breakpoint"))
      if (statement.trim()) await d.execute(sql.raw(statement));
    expect(await found("asked:rm")).toEqual(["deploy"]);
    expect(await found("denied:ask")).toEqual(["denied"]);
    expect(await found("expired:ask")).toEqual(["expired"]);
  });
});

describe("[ASKR6] rollups of time to answer", () => {
  it("[ASKR6] per person who answered and per agent: asks, answered, denied, expired, median and p90 wait", async () => {
    await server.chips.services.review.settle(ws.workspace_id);
    const all = (await Promise.all(Object.values(runs).map((id) => asksOf(ws, id)))).flat();
    const waits = all.map(waitMs).filter((w): w is number => w !== null);
    expect(waits).toHaveLength(3);
    const { rows, asks } = await askRollups(db(), ws.workspace_id, {});
    expect(asks).toBe(4);
    expect(rows.person).toEqual([
      expect.objectContaining({
        key: ws.person_id,
        count: 3,
        answered: 3,
        denied: 1,
        expired: 0,
        p50_ms: Math.round(quantile(waits, 0.5)!),
        p90_ms: Math.round(quantile(waits, 0.9)!),
      }),
      expect.objectContaining({ key: null, count: 1, answered: 0, expired: 1, expired_share: 1, p50_ms: null }),
    ]);
    expect(rows.agent.map((r) => [r.key, r.count, r.denied, r.expired])).toEqual([
      [null, 3, 0, 1],
      [agent, 1, 1, 0],
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await askRollups(db(), ws.workspace_id, { from: today, to: today })).asks).toBe(4);
    expect((await askRollups(db(), ws.workspace_id, { to: "2020-01-01" })).asks).toBe(0);
  });
});
