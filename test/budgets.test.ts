import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { Demo } from "../lib/agents/demo";
import { ChipsClient } from "../lib/agents/sdk";
import {
  ev,
  key,
  newHarness,
  newRoom,
  newWorkspace,
  post,
  readEvents,
  request,
  runStarted,
  runStatus,
  startRun,
  type Workspace,
} from "./support/api";
import { until } from "./support/feed";
import { ack, command } from "./support/harness";
import { startTestServer, type TestServer } from "./support/server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const setBudget = (ws: Workspace, subject: string, body: Record<string, unknown>, token = ws.person_token) =>
  request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/budgets/${subject}`, {
    method: "PUT",
    token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const budgets = async (ws: Workspace) =>
  (await request(`${server.url}/api/v1/workspaces/${ws.workspace_id}/budgets`, { token: ws.token })).body.budgets;
const run = async (ws: Workspace, runId: string) =>
  (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
const commands = async (ws: Workspace, runId: string) =>
  (await request(`${server.url}/api/v1/runs/${runId}/commands`, { token: ws.person_token })).body.commands;
const usage = (input: number, output: number, cost?: number) => ({
  input_tokens: input,
  output_tokens: output,
  ...(cost === undefined ? {} : { cost_usd: cost }),
});
/** An agent of the workspace's harness: its events go with the harness's token. */
const asAgent = (e: Record<string, any>, agent: string) => ({ ...e, actor: { kind: "agent", id: agent } });

describe("[BUD1] usage counts against its harness's budget, exactly", () => {
  it("[BUD1] concurrent cumulative usage reports from 6 agents of one harness add up exactly (no lost update)", async () => {
    const ws = await newWorkspace(server);
    expect(
      (await setBudget(ws, ws.harness_id, { tokens_per_day: 10_000_000, cost_usd_per_month: 10_000 })).status,
    ).toBe(200);
    const agents = Array.from({ length: 6 }, () => newId("agent"));
    const runs = await Promise.all(
      agents.map(async (a) => {
        const runId = newId("run");
        const r = await post(server, ws.token, asAgent(runStarted(ws, runId), a));
        expect(r.status, r.text).toBe(201);
        return runId;
      }),
    );
    // Each agent reports its run's cumulative usage 15 times, all agents at once.
    await Promise.all(
      runs.map(async (runId, i) => {
        for (let n = 1; n <= 15; n++) {
          const r = await post(
            server,
            ws.token,
            asAgent(runStatus(ws, runId, { usage: usage(100 * n, 10 * n + i, 0.01 * n) }), agents[i]),
          );
          expect(r.status, r.text).toBe(201);
        }
      }),
    );
    const [b] = await budgets(ws);
    // Final usage per run: 1500 + (150 + i) tokens and $0.15.
    const tokens = runs.reduce((sum, _, i) => sum + 1500 + 150 + i, 0);
    expect(b.spent).toEqual({ tokens_day: tokens, tokens_month: tokens, cost_usd_day: 0.9, cost_usd_month: 0.9 });
    expect(b).toMatchObject({
      subject: ws.harness_id,
      state: "ok",
      limit: { metric: "tokens", period: "day", limit: 10_000_000, spent: tokens },
    });
  });

  it("[BUD1] a report lower than the run's previous adds nothing; run.finished's usage counts too", async () => {
    const ws = await newWorkspace(server);
    expect((await setBudget(ws, "*", { tokens_per_month: 1_000_000 })).status).toBe(200);
    const runId = newId("run");
    expect((await post(server, ws.token, runStarted(ws, runId))).status).toBe(201);
    expect((await post(server, ws.token, runStatus(ws, runId, { usage: usage(500, 0) }))).status).toBe(201);
    expect((await post(server, ws.token, runStatus(ws, runId, { usage: usage(200, 0) }))).status).toBe(201);
    expect(
      (
        await post(
          server,
          ws.token,
          ev(ws, "run.finished", { run_id: runId, outcome: "succeeded", usage: usage(600, 50) }),
        )
      ).status,
    ).toBe(201);
    expect((await budgets(ws))[0].spent.tokens_month).toBe(500 + 450);
  });
});

describe("[BUD2] [BUD3] at the limit: running runs paused with the reason, new runs refused naming the budget", () => {
  it("[BUD3] the budget running out reaches a running demo harness as a system pause with the reason, which it applies; a person's resume overrides it for that run, recorded, and is not undone by later reports", async () => {
    const ws = await newWorkspace(server);
    expect((await setBudget(ws, ws.harness_id, { tokens_per_day: 1000, warn_at: 0.5 })).status).toBe(200);
    const client = new ChipsClient({ url: server.url, token: ws.token });
    const lines: string[] = [];
    const demo = new Demo({ client, spaceId: ws.space_id, steps: 200, stepMs: 200, log: (l) => lines.push(l) });
    const done = demo.start();
    try {
      await until(() => lines.some((l) => l.startsWith("demo: listening")), "the demo running and listening");
      const demoRun = /demo: run (run_\w+)/.exec(lines.join("\n"))![1];
      // Another agent of the same harness reports 600 tokens: past the warning, not yet the limit.
      const agent = newId("agent");
      const runId = newId("run");
      expect((await post(server, ws.token, asAgent(runStarted(ws, runId), agent))).status).toBe(201);
      expect(
        (await post(server, ws.token, asAgent(runStatus(ws, runId, { usage: usage(500, 100) }), agent))).status,
      ).toBe(201);
      expect((await budgets(ws))[0]).toMatchObject({
        state: "warning",
        limit: { metric: "tokens", period: "day", limit: 1000, spent: 600 },
      });
      expect((await run(ws, demoRun)).state).toBe("running");
      // Then 1000: the limit. Every running run of the harness is sent a pause by the system.
      const r = await post(server, ws.token, asAgent(runStatus(ws, runId, { usage: usage(800, 200) }), agent));
      expect(r.status, r.text).toBe(201);
      const reason = `budget exhausted: ${ws.harness_id}'s tokens per day: 1000 of 1000`;
      await until(async () => (await run(ws, demoRun)).state === "paused", "the demo's run paused");
      const [cmd] = await commands(ws, demoRun);
      expect(cmd).toMatchObject({ command: "pause", text: reason, receipt: "applied", person_id: "system" });
      expect(lines.join("\n")).toContain(`demo: command pause ${cmd.command_id}: "${reason}"`);
      expect((await run(ws, runId)).pending).toBe("pausing");
      expect((await budgets(ws))[0]).toMatchObject({ state: "exhausted", spent: { tokens_day: 1000 } });
      // A person overrides the pause for this one run by resuming it: recorded as their command.
      const resume = await request(`${server.url}/api/v1/runs/${demoRun}/commands`, {
        method: "POST",
        token: ws.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ command: "resume", text: "over budget on purpose", idempotency_key: key() }),
      });
      expect(resume.status, resume.text).toBe(201);
      await until(async () => (await run(ws, demoRun)).state === "running", "the demo's run resumed");
      // Later reports of the exhausted harness do not pause the overridden run again.
      expect(
        (await post(server, ws.token, asAgent(runStatus(ws, runId, { usage: usage(900, 300) }), agent))).status,
      ).toBe(201);
      expect((await budgets(ws))[0]).toMatchObject({ state: "exhausted", spent: { tokens_day: 1200 } });
      expect((await run(ws, demoRun)).state).toBe("running");
      expect(
        (await commands(ws, demoRun)).map((c: Record<string, unknown>) => [c.command, c.person_id, c.receipt]),
      ).toEqual([
        ["pause", "system", "applied"],
        ["resume", ws.person_id, "applied"],
      ]);
    } finally {
      demo.stop("test over");
      await done;
      client.close();
    }
  });

  it("[BUD2] a new run of an exhausted harness is refused 409 budget_exhausted naming the budget; another harness is not; a workspace budget refuses POST /api/v1/runs", async () => {
    const ws = await newWorkspace(server);
    expect((await setBudget(ws, ws.harness_id, { cost_usd_per_day: 0.5 })).status).toBe(200);
    const runId = newId("run");
    expect((await post(server, ws.token, runStarted(ws, runId))).status).toBe(201);
    expect((await post(server, ws.token, runStatus(ws, runId, { usage: usage(1, 1, 0.5) }))).status).toBe(201);
    const refused = await post(server, ws.token, runStarted(ws));
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body).toMatchObject({
      code: "budget_exhausted",
      errors: [{ pointer: "/run_id" }],
      budget: { subject: ws.harness_id, metric: "cost_usd", period: "day", limit: 0.5, spent: 0.5 },
    });
    const other = await newHarness(server, ws, "other");
    const theirs = await post(server, other.token, {
      ...runStarted(ws),
      actor: { kind: "harness", id: other.harness_id },
    });
    expect(theirs.status, theirs.text).toBe(201);
    // The workspace's own budget: a person's new run is refused too, naming it.
    expect((await setBudget(ws, "*", { cost_usd_per_month: 0.25 })).status).toBe(200);
    const queued = await request(`${server.url}/api/v1/runs`, {
      method: "POST",
      token: ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ space_id: ws.space_id, prompt: "more", repository: "r", idempotency_key: key() }),
    });
    expect(queued.status).toBe(409);
    expect(queued.body).toMatchObject({
      code: "budget_exhausted",
      budget: { subject: "*", metric: "cost_usd", period: "month", limit: 0.25, spent: 0.5 },
    });
  });

  it("[BUD2] only an owner sets a budget; its subject is a harness of the workspace or *; bad limits are 422", async () => {
    const ws = await newWorkspace(server);
    expect((await setBudget(ws, ws.harness_id, { tokens_per_day: 5 }, ws.token)).status).toBe(403);
    const bad = await setBudget(ws, newId("harness"), { tokens_per_day: 5 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].pointer).toBe("/path/subject");
    const neg = await setBudget(ws, "*", { tokens_per_day: -1 });
    expect(neg.status).toBe(422);
    expect(neg.body.errors[0].pointer).toBe("/tokens_per_day");
    expect(await budgets(ws)).toEqual([]);
  });
});

describe("[BUD3] a budget running out never refuses the report that crossed it", () => {
  it("[BUD3] [DRV1] the crossing report is stored: the harness's pause-obeying runs are paused in every room; a watch-only run and one that does not obey pause get a notice instead", async () => {
    const ws = await newWorkspace(server);
    const other = await newRoom(server, ws, "elsewhere");
    expect((await setBudget(ws, ws.harness_id, { tokens_per_day: 1000 })).status).toBe(200);
    const here = await startRun(server, ws);
    const there = await startRun(server, other);
    const watchOnly = await startRun(server, ws, { commands: [] });
    const noPause = await startRun(server, other, { commands: ["steer", "cancel"] });
    const report = runStatus(ws, here, { usage: usage(900, 100) });
    const r = await post(server, ws.token, report);
    expect(r.status, r.text).toBe(201);
    // A retry of the report is its replay, never a 5xx.
    expect((await post(server, ws.token, report)).status).toBe(200);

    const reason = `budget exhausted: ${ws.harness_id}'s tokens per day: 1000 of 1000`;
    for (const id of [here, there]) {
      expect(await commands(ws, id)).toMatchObject([{ command: "pause", text: reason, person_id: "system" }]);
      expect((await run(ws, id)).pending).toBe("pausing");
    }
    const log = await readEvents(server, ws);
    const derived = log.filter((e) => e.seq > r.body.events[0].seq);
    expect(derived.map((e) => [e.type, e.run_id, e.actor.kind])).toEqual(
      expect.arrayContaining([
        ["run.command", here, "system"],
        ["run.command", there, "system"],
        ["run.notice", watchOnly, "system"],
        ["run.notice", noPause, "system"],
      ]),
    );
    expect(derived).toHaveLength(4);
    const notice = (id: string) => derived.find((e) => e.type === "run.notice" && e.run_id === id);
    expect(notice(watchOnly)).toMatchObject({
      space_id: ws.space_id,
      code: "command_not_supported",
      derived: { type: "run.command", command: "pause" },
    });
    expect(notice(watchOnly).text).toBe(
      `could not pause this run (${reason}): this run's harness does not take pause: it is watch-only`,
    );
    expect(notice(noPause)).toMatchObject({ space_id: other.space_id, code: "command_not_supported" });
    expect(notice(noPause).text).toContain("it obeys only steer, cancel");
    for (const id of [watchOnly, noPause]) {
      expect(await commands(ws, id)).toEqual([]);
      expect((await run(ws, id)).state).toBe("running");
    }
  });

  it("[BUD3] a workspace budget running out reaches every harness's running runs in every room; a paused or finished run gets neither pause nor notice", async () => {
    const ws = await newWorkspace(server);
    const other = await newRoom(server, ws, "elsewhere");
    const second = await newHarness(server, ws, "second");
    const ws2 = { ...other, token: second.token, harness_id: second.harness_id };
    expect((await setBudget(ws, "*", { cost_usd_per_day: 1 })).status).toBe(200);
    const mine = await startRun(server, ws);
    const theirs = await startRun(server, ws2);
    const theirsWatchOnly = await startRun(server, ws2, { commands: [] });
    const finished = await startRun(server, ws2);
    expect(
      (await post(server, ws2.token, ev(ws2, "run.finished", { run_id: finished, outcome: "succeeded" }))).status,
    ).toBe(201);
    const paused = await startRun(server, ws2);
    const pause = await command(server, ws2, paused, "pause");
    expect((await ack(server, ws2, paused, pause.body.command_id, "applied")).status).toBe(201);
    expect((await run(ws, paused)).state).toBe("paused");
    const r = await post(server, ws2.token, runStatus(ws2, theirs, { usage: usage(1, 1, 1) }));
    expect(r.status, r.text).toBe(201);
    const derived = (await readEvents(server, ws)).filter((e) => e.seq > r.body.events[0].seq);
    expect(derived.map((e) => [e.type, e.run_id]).sort()).toEqual(
      [
        ["run.command", mine],
        ["run.command", theirs],
        ["run.notice", theirsWatchOnly],
      ].sort(),
    );
  });
});
