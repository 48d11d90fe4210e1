import { io } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { appendSystem } from "../lib/server/commands";
import {
  ev,
  newHarness,
  newWorkspace,
  post,
  readEvents,
  request,
  serverWithWorkspace,
  startRun,
  type Workspace,
} from "./support/api";
import { answer, ask, invited, permission, question, readAsk } from "./support/asks";
import { until } from "./support/feed";
import { ack, command } from "./support/harness";
import type { TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
let member: Awaited<ReturnType<typeof invited>>;
let viewer: Awaited<ReturnType<typeof invited>>;
beforeAll(async () => {
  ({ server, ws } = await serverWithWorkspace({ rateLimit: 0, authAttemptsPerMinute: 0 }));
  member = await invited(server, ws, "member", "Dana");
  viewer = await invited(server, ws, "viewer", "Vic");
});
afterAll(() => server?.close());

const owner = () => ({ token: ws.person_token });
const run = async (runId: string) => (await request(`${server.url}/api/v1/runs/${runId}`, { token: ws.token })).body;
const asksOf = async (runId: string, token = ws.token) =>
  (await request(`${server.url}/api/v1/runs/${runId}/asks`, { token })).body.asks as any[];
const harnessPost = (body: unknown) => post(server, ws.token, body);
const applied = (runId: string, askId: string, result = "applied", reason?: string) =>
  harnessPost(ev(ws, "run.answer_applied", { run_id: runId, ask_id: askId, result, ...(reason ? { reason } : {}) }));

describe("[ASK1] a run asks a person", () => {
  it("[ASK1] a permission on a running run is stored with its receipt, and the run says it waits for a person", async () => {
    const runId = await startRun(server, ws);
    const body = permission(ws, runId, { expires_in_seconds: 600, scope: "Bash(rm:*)" });
    const r = await harnessPost(body);
    expect(r.status, r.text).toBe(201);
    const stored = r.body.events[0];
    expect(stored).toMatchObject({ type: "run.asked", ask_id: body.ask_id, space_id: ws.space_id, kind: "permission" });
    expect(await run(runId)).toMatchObject({ asks_open: 1, waiting_since: stored.ts });
    const [a] = await asksOf(runId);
    expect(a).toMatchObject({
      ask_id: body.ask_id,
      run_id: runId,
      harness_id: ws.harness_id,
      state: "asked",
      seq: stored.seq,
      created_at: stored.ts,
      request: { kind: "permission", tool: "Bash", summary: "rm -rf build/", paths: ["build/"], scope: "Bash(rm:*)" },
      answer: null,
    });
    expect(Date.parse(a.expires_at) - Date.parse(stored.ts)).toBe(600_000);
    // The same key and body again is the stored ask; the same ask id under another key is refused.
    const again = await harnessPost(body);
    expect([again.status, again.body.events[0]]).toEqual([200, stored]);
    const taken = await harnessPost({ ...body, id: newId("event"), idempotency_key: `other-${body.ask_id}` });
    expect([taken.status, taken.body.code, taken.body.errors[0].pointer]).toEqual([
      409,
      "invalid_transition",
      "/ask_id",
    ]);
  });

  it("[ASK1] only a running run of the sender asks: paused 409, finished 409, a queued run nobody took 403, another harness's 403", async () => {
    const runId = await startRun(server, ws);
    const pause = await command(server, ws, runId, "pause");
    await ack(server, ws, runId, pause.body.command_id, "applied");
    const paused = await harnessPost(permission(ws, runId));
    expect([paused.status, paused.body.code]).toEqual([409, "run_paused"]);

    const done = await startRun(server, ws);
    await harnessPost(ev(ws, "run.finished", { run_id: done, outcome: "succeeded" }));
    const finished = await harnessPost(permission(ws, done));
    expect([finished.status, finished.body.code]).toEqual([409, "run_finished"]);

    const queued = await request(`${server.url}/api/v1/runs`, {
      method: "POST",
      token: ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        space_id: ws.space_id,
        prompt: "p",
        repository: "nowhere",
        idempotency_key: newId("event"),
      }),
    });
    const onQueued = await harnessPost(permission(ws, queued.body.run_id));
    expect([onQueued.status, onQueued.body.code]).toEqual([403, "forbidden"]);

    const other = await newHarness(server, ws, "another");
    const theirs = await post(
      server,
      other.token,
      permission(ws, runId, { actor: { kind: "harness", id: other.harness_id } }),
    );
    expect(theirs.status).toBe(403);
  });

  it("[ASK1] an ask says what it needs: a permission its tool and summary, a question its text and a way to answer", async () => {
    const runId = await startRun(server, ws);
    const cases: [Record<string, unknown>, string][] = [
      [permission(ws, runId, { tool: undefined }), "/tool"],
      [permission(ws, runId, { summary: undefined }), "/summary"],
      [permission(ws, runId, { question: "why?" }), "/question"],
      [permission(ws, runId, { options: [{ id: "y", label: "Yes" }] }), "/options/0/decision"],
      [
        permission(ws, runId, {
          options: [
            { id: "y", label: "Yes", decision: "allow" },
            { id: "y", label: "No", decision: "deny" },
          ],
        }),
        "/options/1/id",
      ],
      [question(ws, runId, { options: undefined, free_text: false }), "/options"],
      [question(ws, runId, { tool: "Bash" }), "/tool"],
      [question(ws, runId, { options: [{ id: "a", label: "A", decision: "allow" }] }), "/options/0/decision"],
      [permission(ws, runId, { summary: "x".repeat(501) }), "/summary"],
      [permission(ws, runId, { expires_in_seconds: 86_401 }), "/expires_in_seconds"],
      [permission(ws, runId, { paths: Array.from({ length: 51 }, (_, i) => `f${i}`) }), "/paths"],
    ];
    for (const [body, pointer] of cases) {
      const r = await harnessPost(body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([422, "validation_failed"]);
      expect(r.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    expect(await asksOf(runId)).toEqual([]);
    expect((await request(`${server.url}/schemas/run.asked.json`)).body.title).toBe("run.asked");
  });
});

describe("[ASK2] the first answer wins", () => {
  it("[ASK2] an answer is stored for the person; a second gets 409 ask_closed naming who answered what; the same key is a replay", async () => {
    const runId = await startRun(server, ws);
    const askId = await ask(server, ws, permission(ws, runId));
    const first = await answer(
      server,
      runId,
      askId,
      { decision: "allow", idempotency_key: "first" },
      { headers: member.headers },
    );
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      type: "run.answered",
      ask_id: askId,
      decision: "allow",
      option_id: "allow",
      actor: { kind: "person", id: member.personId },
    });
    const replay = await answer(
      server,
      runId,
      askId,
      { decision: "allow", idempotency_key: "first" },
      { headers: member.headers },
    );
    expect([replay.status, replay.body]).toEqual([200, first.body]);
    const second = await answer(server, runId, askId, { decision: "deny" }, owner());
    expect([second.status, second.body.code]).toEqual([409, "ask_closed"]);
    expect(second.body.detail).toMatch(/^Dana already answered Allow at /);
    expect(second.body).toMatchObject({
      ask_id: askId,
      state: "answered",
      answered_by_name: "Dana",
      answer_label: "Allow",
      answer: { person_id: member.personId, decision: "allow", at: first.body.ts, seq: first.body.seq },
    });
    expect(await run(runId)).toMatchObject({ asks_open: 0, waiting_since: null });
    expect((await asksOf(runId))[0]).toMatchObject({ state: "answered", answer: { person_id: member.personId } });
  });

  it("[ASK2] two people answering the same ask at once: exactly one 201, the other is told who won", async () => {
    const runId = await startRun(server, ws);
    for (let i = 0; i < 8; i++) {
      const askId = await ask(server, ws, permission(ws, runId));
      const [a, b] = await Promise.all([
        answer(server, runId, askId, { decision: "allow" }, { headers: member.headers }),
        answer(server, runId, askId, { decision: "deny" }, owner()),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const [won, lost] = a.status === 201 ? [a, b] : [b, a];
      expect(lost.body.answer.seq).toBe(won.body.seq);
      expect(lost.body.answered_by_name).toBe(won === a ? "Dana" : "Owner");
    }
    const answers = (await readEvents(server, ws, 0)).filter((e) => e.run_id === runId && e.type === "run.answered");
    expect(answers).toHaveLength(8);
  });

  it("[ASK2] an answer fits what was asked; the server fills in the option, the decision and what 'for this run' covers", async () => {
    const runId = await startRun(server, ws);
    const plain = await ask(server, ws, permission(ws, runId));
    const bad: [Record<string, unknown>, string][] = [
      [{}, "/decision"],
      [{ decision: "allow", text: "sure" }, "/text"],
      [{ option_id: "maybe" }, "/option_id"],
      [{ decision: "deny", option_id: "allow" }, "/decision"],
    ];
    for (const [body, pointer] of bad) {
      const r = await answer(server, runId, plain, body, owner());
      expect([r.status, r.body.code, r.body.errors?.[0]?.pointer], JSON.stringify(body)).toEqual([
        422,
        "validation_failed",
        pointer,
      ]);
    }
    const forRun = await answer(server, runId, plain, { decision: "allow_for_run", note: "build/ is ours" }, owner());
    expect(forRun.body).toMatchObject({
      decision: "allow_for_run",
      option_id: "allow_for_run",
      scope: "Bash",
      note: "build/ is ours",
    });

    const own = await ask(
      server,
      ws,
      permission(ws, runId, {
        scope: "Bash(rm:*)",
        options: [
          { id: "yes", label: "Yes", decision: "allow" },
          { id: "always", label: "Yes, and don't ask again for rm", decision: "allow_for_run" },
          { id: "no", label: "No, and tell Claude what to do differently", decision: "deny" },
        ],
      }),
    );
    const notOffered = await ask(
      server,
      ws,
      permission(ws, runId, { options: [{ id: "no", label: "No", decision: "deny" }] }),
    );
    expect((await answer(server, runId, notOffered, { decision: "allow" }, owner())).body.errors[0].pointer).toBe(
      "/decision",
    );
    const chosen = await answer(server, runId, own, { option_id: "always" }, owner());
    expect(chosen.body).toMatchObject({ decision: "allow_for_run", option_id: "always", scope: "Bash(rm:*)" });

    const q = await ask(server, ws, question(ws, runId));
    expect((await answer(server, runId, q, { decision: "allow" }, owner())).body.errors[0].pointer).toBe("/decision");
    expect((await answer(server, runId, q, { option_id: "mysql" }, owner())).body.errors[0].pointer).toBe("/option_id");
    expect((await answer(server, runId, q, {}, owner())).body.errors[0].pointer).toBe("/option_id");
    const typed = await answer(server, runId, q, { text: "PGlite, then PostgreSQL in CI" }, owner());
    expect(typed.body).toMatchObject({ text: "PGlite, then PostgreSQL in CI" });
    const strict = await ask(server, ws, question(ws, runId, { free_text: false }));
    expect((await answer(server, runId, strict, { text: "mine" }, owner())).body.errors[0].pointer).toBe("/text");
    expect((await answer(server, runId, strict, { option_id: "pg" }, owner())).status).toBe(201);
    expect((await asksOf(runId)).map((a) => a.state)).toEqual([
      "answered",
      "answered",
      "asked",
      "answered",
      "answered",
    ]);
  });

  it("[ASK2] an unknown ask, or another run's, is 404 ask_not_found; another workspace's run is 404 run_not_found", async () => {
    const runId = await startRun(server, ws);
    const other = await startRun(server, ws);
    const askId = await ask(server, ws, permission(ws, other));
    expect((await answer(server, runId, askId, { decision: "allow" }, owner())).body.code).toBe("ask_not_found");
    expect((await answer(server, runId, newId("ask"), { decision: "allow" }, owner())).body.code).toBe("ask_not_found");
    expect((await answer(server, runId, "ask_nope", { decision: "allow" }, owner())).body.code).toBe("ask_not_found");
    const elsewhere = await newWorkspace(server);
    const r = await answer(server, other, askId, { decision: "allow" }, { token: elsewhere.person_token });
    expect([r.status, r.body.code]).toEqual([404, "run_not_found"]);
  });
});

describe("[ASK3] who answers", () => {
  it("[ASK3] a viewer cannot answer; a harness cannot send run.answered or run.ask_shown; nothing is stored", async () => {
    const runId = await startRun(server, ws);
    const askId = await ask(server, ws, permission(ws, runId));
    const byViewer = await answer(server, runId, askId, { decision: "allow" }, { headers: viewer.headers });
    expect([byViewer.status, byViewer.body.code]).toEqual([403, "forbidden"]);
    const byHarness = await answer(server, runId, askId, { decision: "allow" }, { token: ws.token });
    expect(byHarness.status).toBe(403);
    for (const type of ["run.answered", "run.ask_shown"]) {
      const r = await harnessPost(ev(ws, type, { run_id: runId, ask_id: askId, decision: "allow", via: "browser" }));
      expect([type, r.status]).toEqual([type, 403]);
    }
    // A viewer reads the ask and the inbox.
    expect(
      (await request(`${server.url}/api/v1/runs/${runId}/asks/${askId}`, { headers: viewer.headers })).body.state,
    ).toBe("asked");
    expect((await asksOf(runId))[0].state).toBe("asked");
  });
});

describe("[ASK4] receipts: asked → shown → answered → applied", () => {
  it("[ASK4] the receipt advances with each event; the harness's word on an answer is said once", async () => {
    const runId = await startRun(server, ws);
    const askId = await ask(server, ws, permission(ws, runId));
    const early = await applied(runId, askId);
    expect([early.status, early.body.code]).toEqual([409, "invalid_transition"]);
    const shown = await appendSystem(server.chips.services, ws.workspace_id, {
      type: "run.ask_shown",
      run_id: runId,
      ask_id: askId,
      via: "browser",
    } as never);
    expect(shown.ok).toBe(true);
    const twice = await appendSystem(server.chips.services, ws.workspace_id, {
      type: "run.ask_shown",
      run_id: runId,
      ask_id: askId,
      via: "webhook",
    } as never);
    expect(twice.ok).toBe(false);
    expect((await asksOf(runId))[0]).toMatchObject({ state: "shown", shown_via: "browser" });
    const a = await answer(
      server,
      runId,
      askId,
      { decision: "deny", note: "not build/, it holds the fixtures" },
      owner(),
    );
    const done = await applied(runId, askId);
    expect(done.status).toBe(201);
    const again = await applied(runId, askId);
    expect([again.status, again.body.events[0]]).toEqual([200, done.body.events[0]]);
    const other = await applied(runId, askId, "rejected", "too late");
    expect([other.status, other.body.code]).toEqual([409, "invalid_transition"]);
    expect((await asksOf(runId))[0]).toMatchObject({
      state: "applied",
      answer: { decision: "deny", note: "not build/, it holds the fixtures", seq: a.body.seq },
      settled_seq: done.body.events[0].seq,
    });
  });

  it("[ASK4] the run waits since its oldest ask still waiting for a person; none waiting, none since", async () => {
    const runId = await startRun(server, ws);
    const first = await harnessPost(permission(ws, runId));
    const second = await harnessPost(question(ws, runId));
    expect(await run(runId)).toMatchObject({ asks_open: 2, waiting_since: first.body.events[0].ts });
    await answer(server, runId, first.body.events[0].ask_id, { decision: "allow" }, owner());
    expect(await run(runId)).toMatchObject({ asks_open: 1, waiting_since: second.body.events[0].ts });
    const closed = await harnessPost(
      ev(ws, "run.ask_closed", {
        run_id: runId,
        ask_id: second.body.events[0].ask_id,
        reason: "answered_elsewhere",
        note: "answered PGlite at the terminal",
      }),
    );
    expect(closed.status).toBe(201);
    expect(await run(runId)).toMatchObject({ asks_open: 0, waiting_since: null });
    expect((await asksOf(runId))[1]).toMatchObject({
      state: "closed",
      closed_reason: "answered_elsewhere",
      reason: "answered PGlite at the terminal",
    });
    // A closed ask takes no answer, and its close again is the stored one.
    const late = await answer(server, runId, second.body.events[0].ask_id, { option_id: "pg" }, owner());
    expect([late.status, late.body.code, late.body.closed_reason]).toEqual([409, "ask_closed", "answered_elsewhere"]);
  });

  it("[ASK4] a long-poll returns once the ask is answered; a wait that runs out answers the ask as it is", async () => {
    const runId = await startRun(server, ws);
    const askId = await ask(server, ws, permission(ws, runId));
    const short = await readAsk(server, ws.token, runId, askId, 1);
    expect([short.status, short.body.state]).toEqual([200, "asked"]);
    const waiting = readAsk(server, ws.token, runId, askId, 30);
    const a = await answer(server, runId, askId, { decision: "allow" }, owner());
    const got = await waiting;
    expect(got.body).toMatchObject({ state: "answered", answer: { seq: a.body.seq } });
    expect((await readAsk(server, ws.token, runId, askId, 31)).status).toBe(422);
    const other = await newHarness(server, ws, "not this run's");
    expect((await readAsk(server, other.token, runId, askId)).status).toBe(403);
  });

  it("[ASK4] the inbox lists what waits for a person across rooms, oldest first; answered ones leave it", async () => {
    const mine = await newWorkspace(server);
    const room2 = (
      await request(`${server.url}/api/v1/workspaces/${mine.workspace_id}/spaces`, {
        method: "POST",
        token: mine.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "release" }),
      })
    ).body.id;
    const a = await startRun(server, mine);
    const b = await startRun(server, mine, { space_id: room2 });
    const first = await ask(server, mine, permission(mine, a));
    const second = await ask(server, mine, question(mine, b));
    const third = await ask(server, mine, permission(mine, a, { tool: "Edit", summary: "Edit src/x.ts" }));
    const inbox = async (q = "") =>
      (await request(`${server.url}/api/v1/workspaces/${mine.workspace_id}/asks${q}`, { token: mine.person_token }))
        .body.asks as any[];
    expect((await inbox()).map((x) => [x.ask_id, x.space_name])).toEqual([
      [first, "general"],
      [second, "release"],
      [third, "general"],
    ]);
    await answer(server, a, first, { decision: "allow" }, { token: mine.person_token });
    expect((await inbox()).map((x) => x.ask_id)).toEqual([second, third]);
    expect((await inbox("?state=all")).map((x) => x.ask_id)).toEqual([first, second, third]);
    expect(
      (
        await request(`${server.url}/api/v1/workspaces/${mine.workspace_id}/asks?state=mine`, {
          token: mine.person_token,
        })
      ).status,
    ).toBe(422);
  });
});

describe("[ASK5] a run that ends closes its asks", () => {
  it("[ASK5] run.finished is followed by run.ask_closed{run_finished} for each ask still waiting; an unapplied answer is settled", async () => {
    const runId = await startRun(server, ws);
    const open = await ask(server, ws, permission(ws, runId));
    const answeredId = await ask(server, ws, question(ws, runId));
    await answer(server, runId, answeredId, { option_id: "pg" }, owner());
    const fin = await harnessPost(ev(ws, "run.finished", { run_id: runId, outcome: "succeeded" }));
    expect(fin.status).toBe(201);
    const after = (await readEvents(server, ws, fin.body.events[0].seq - 1)).filter((e) => e.run_id === runId);
    expect(after.map((e) => [e.type, e.actor.kind, e.ask_id ?? null, e.reason ?? null])).toEqual([
      ["run.finished", "harness", null, null],
      ["run.ask_closed", "system", open, "run_finished"],
    ]);
    expect(await run(runId)).toMatchObject({ state: "finished", asks_open: 0, waiting_since: null });
    const [o, q] = await asksOf(runId);
    expect(o).toMatchObject({ state: "closed", closed_reason: "run_finished" });
    expect(q).toMatchObject({ state: "rejected", reason: "the run finished before the harness applied the answer" });
    // The harness may still say it applied the answer; an answer now is refused, naming why.
    expect((await applied(runId, answeredId)).status).toBe(201);
    expect((await asksOf(runId))[1].state).toBe("applied");
    const late = await answer(server, runId, open, { decision: "allow" }, owner());
    expect([late.status, late.body.code, late.body.closed_reason]).toEqual([409, "ask_closed", "run_finished"]);
  });

  it("[ASK5] a cancel the harness applies ends the run and closes its asks in the same transaction", async () => {
    const runId = await startRun(server, ws);
    const askId = await ask(server, ws, permission(ws, runId));
    const c = await command(server, ws, runId, "cancel");
    const acked = await ack(server, ws, runId, c.body.command_id, "applied");
    const seq = acked.body.events[0].seq;
    const after = (await readEvents(server, ws, seq - 1)).filter((e) => e.run_id === runId);
    expect(after.map((e) => [e.seq - seq, e.type, e.ask_id ?? null])).toEqual([
      [0, "run.command_acked", null],
      [1, "run.finished", null],
      [2, "run.ask_closed", askId],
    ]);
  });
});

describe("[ASK6] an ask that expires", () => {
  it("[ASK6] past its expiry an ask takes no answer; Chips closes it with the agent's safe default; the agent's own close replays it", async () => {
    const runId = await startRun(server, ws);
    const body = permission(ws, runId, { expires_in_seconds: 1 });
    await ask(server, ws, body);
    const [a] = await asksOf(runId);
    await until(() => Date.now() > Date.parse(a.expires_at), "the ask's expiry passed");
    const late = await answer(server, runId, a.ask_id, { decision: "allow" }, owner());
    expect([late.status, late.body.code, late.body.closed_reason]).toEqual([409, "ask_closed", "expired"]);
    await until(async () => (await asksOf(runId))[0].state === "closed", "Chips closed the expired ask");
    expect((await asksOf(runId))[0]).toMatchObject({ closed_reason: "expired", applied_default: "deny" });
    const close = (await readEvents(server, ws, a.seq)).find(
      (e) => e.type === "run.ask_closed" && e.ask_id === a.ask_id,
    );
    expect(close).toMatchObject({ actor: { kind: "system" }, reason: "expired", applied_default: "deny" });
    const own = await harnessPost(
      ev(ws, "run.ask_closed", { run_id: runId, ask_id: a.ask_id, reason: "expired", applied_default: "deny" }),
    );
    expect([own.status, own.body.events[0]]).toEqual([200, close]);
    const other = await harnessPost(ev(ws, "run.ask_closed", { run_id: runId, ask_id: a.ask_id, reason: "cancelled" }));
    expect([other.status, other.body.code]).toEqual([409, "ask_closed"]);
    expect(await run(runId)).toMatchObject({ asks_open: 0 });
  });
});

describe("[ASK4] asks reach the workspace's people wherever they are", () => {
  it("[ASK4] each ask event goes to the workspace's people sockets as `ask`, never to another workspace's; an ask pushed to a person's page is shown", async () => {
    const mine = await newWorkspace(server);
    const theirs = await newWorkspace(server);
    const runId = await startRun(server, mine);
    // Nobody of the workspace has a page open: the ask stays `asked`.
    const unseen = await ask(server, mine, permission(mine, runId));
    const connect = (token: string) => {
      const got: any[] = [];
      const s = io(server.url, { transports: ["websocket"], auth: { token }, forceNew: true });
      s.on("ask", (e: any) => got.push(e));
      return { s, got, up: () => until(() => s.connected, "the person's socket connects") };
    };
    const me = connect(mine.person_token);
    const other = connect(theirs.person_token);
    await me.up();
    await other.up();
    expect((await asksOf(runId, mine.token))[0].state).toBe("asked");
    const seen = await ask(server, mine, permission(mine, runId));
    await until(
      () => me.got.some((e) => e.type === "run.ask_shown" && e.ask_id === seen),
      "the ask pushed, then shown",
    );
    expect(me.got.map((e) => [e.type, e.ask_id])).toEqual([
      ["run.asked", seen],
      ["run.ask_shown", seen],
    ]);
    expect(me.got[1]).toMatchObject({ via: "browser", actor: { kind: "system" } });
    await answer(server, runId, unseen, { decision: "deny" }, { token: mine.person_token });
    await until(() => me.got.some((e) => e.type === "run.answered"), "the answer pushed too");
    expect((await asksOf(runId, mine.token)).map((a) => a.state)).toEqual(["answered", "shown"]);
    expect(other.got).toEqual([]);
    me.s.disconnect();
    other.s.disconnect();
  });
});
