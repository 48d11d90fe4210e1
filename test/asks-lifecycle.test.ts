import { io } from "socket.io-client";
import { describe, expect, it } from "vitest";
import { appendSystem } from "../lib/server/commands";
import { ev, newHarness, newWorkspace, readEvents, request, startRun } from "./support/api";
import { answer, ask, permission, question, readAsk } from "./support/asks";
import { until } from "./support/feed";
import { ack, command } from "./support/harness";
import { askWorld } from "./support/ask-world";

/** The asks API: an ask's receipts, its close when the run ends or it expires, and its way to people's pages ([ASK4]–[ASK6]). */
const w = askWorld();

describe("[ASK4] receipts: asked → shown → answered → applied", () => {
  it("[ASK4] the receipt advances with each event; the harness's word on an answer is said once", async () => {
    const runId = await startRun(w.server, w.ws);
    const askId = await ask(w.server, w.ws, permission(w.ws, runId));
    const early = await w.applied(runId, askId);
    expect([early.status, early.body.code]).toEqual([409, "invalid_transition"]);
    const shown = await appendSystem(w.server.chips.services, w.ws.workspace_id, {
      type: "run.ask_shown",
      run_id: runId,
      ask_id: askId,
      via: "browser",
    } as never);
    expect(shown.ok).toBe(true);
    const twice = await appendSystem(w.server.chips.services, w.ws.workspace_id, {
      type: "run.ask_shown",
      run_id: runId,
      ask_id: askId,
      via: "webhook",
    } as never);
    expect(twice.ok).toBe(false);
    expect((await w.asksOf(runId))[0]).toMatchObject({ state: "shown", shown_via: "browser" });
    const a = await answer(
      w.server,
      runId,
      askId,
      { decision: "deny", note: "not build/, it holds the fixtures" },
      w.owner(),
    );
    const done = await w.applied(runId, askId);
    expect(done.status).toBe(201);
    const again = await w.applied(runId, askId);
    expect([again.status, again.body.events[0]]).toEqual([200, done.body.events[0]]);
    const other = await w.applied(runId, askId, "rejected", "too late");
    expect([other.status, other.body.code]).toEqual([409, "invalid_transition"]);
    expect((await w.asksOf(runId))[0]).toMatchObject({
      state: "applied",
      answer: { decision: "deny", note: "not build/, it holds the fixtures", seq: a.body.seq },
      settled_seq: done.body.events[0].seq,
    });
  });

  it("[ASK4] the run waits since its oldest ask still waiting for a person; none waiting, none since", async () => {
    const runId = await startRun(w.server, w.ws);
    const first = await w.harnessPost(permission(w.ws, runId));
    const second = await w.harnessPost(question(w.ws, runId));
    expect(await w.run(runId)).toMatchObject({ asks_open: 2, waiting_since: first.body.events[0].ts });
    await answer(w.server, runId, first.body.events[0].ask_id, { decision: "allow" }, w.owner());
    expect(await w.run(runId)).toMatchObject({ asks_open: 1, waiting_since: second.body.events[0].ts });
    const closed = await w.harnessPost(
      ev(w.ws, "run.ask_closed", {
        run_id: runId,
        ask_id: second.body.events[0].ask_id,
        reason: "answered_elsewhere",
        note: "answered PGlite at the terminal",
      }),
    );
    expect(closed.status).toBe(201);
    expect(await w.run(runId)).toMatchObject({ asks_open: 0, waiting_since: null });
    expect((await w.asksOf(runId))[1]).toMatchObject({
      state: "closed",
      closed_reason: "answered_elsewhere",
      reason: "answered PGlite at the terminal",
    });
    // A closed ask takes no answer, and its close again is the stored one.
    const late = await answer(w.server, runId, second.body.events[0].ask_id, { option_id: "pg" }, w.owner());
    expect([late.status, late.body.code, late.body.closed_reason]).toEqual([409, "ask_closed", "answered_elsewhere"]);
  });

  it("[ASK4] a long-poll returns once the ask is answered; a wait that runs out answers the ask as it is", async () => {
    const runId = await startRun(w.server, w.ws);
    const askId = await ask(w.server, w.ws, permission(w.ws, runId));
    const short = await readAsk(w.server, w.ws.token, runId, askId, 1);
    expect([short.status, short.body.state]).toEqual([200, "asked"]);
    const waiting = readAsk(w.server, w.ws.token, runId, askId, 30);
    const a = await answer(w.server, runId, askId, { decision: "allow" }, w.owner());
    const got = await waiting;
    expect(got.body).toMatchObject({ state: "answered", answer: { seq: a.body.seq } });
    expect((await readAsk(w.server, w.ws.token, runId, askId, 31)).status).toBe(422);
    const other = await newHarness(w.server, w.ws, "not this run's");
    expect((await readAsk(w.server, other.token, runId, askId)).status).toBe(403);
  });

  it("[ASK4] the inbox lists what waits for a person across rooms, oldest first; answered ones leave it", async () => {
    const mine = await newWorkspace(w.server);
    const room2 = (
      await request(`${w.server.url}/api/v1/workspaces/${mine.workspace_id}/spaces`, {
        method: "POST",
        token: mine.person_token,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "release" }),
      })
    ).body.id;
    const a = await startRun(w.server, mine);
    const b = await startRun(w.server, mine, { space_id: room2 });
    const first = await ask(w.server, mine, permission(mine, a));
    const second = await ask(w.server, mine, question(mine, b));
    const third = await ask(w.server, mine, permission(mine, a, { tool: "Edit", summary: "Edit src/x.ts" }));
    const inbox = async (q = "") =>
      (await request(`${w.server.url}/api/v1/workspaces/${mine.workspace_id}/asks${q}`, { token: mine.person_token }))
        .body.asks as any[];
    expect((await inbox()).map((x) => [x.ask_id, x.space_name])).toEqual([
      [first, "general"],
      [second, "release"],
      [third, "general"],
    ]);
    await answer(w.server, a, first, { decision: "allow" }, { token: mine.person_token });
    expect((await inbox()).map((x) => x.ask_id)).toEqual([second, third]);
    expect((await inbox("?state=all")).map((x) => x.ask_id)).toEqual([first, second, third]);
    expect(
      (
        await request(`${w.server.url}/api/v1/workspaces/${mine.workspace_id}/asks?state=mine`, {
          token: mine.person_token,
        })
      ).status,
    ).toBe(422);
  });
});

describe("[ASK5] a run that ends closes its asks", () => {
  it("[ASK5] run.finished is followed by run.ask_closed{run_finished} for each ask still waiting; an unapplied answer is settled", async () => {
    const runId = await startRun(w.server, w.ws);
    const open = await ask(w.server, w.ws, permission(w.ws, runId));
    const answeredId = await ask(w.server, w.ws, question(w.ws, runId));
    await answer(w.server, runId, answeredId, { option_id: "pg" }, w.owner());
    const fin = await w.harnessPost(ev(w.ws, "run.finished", { run_id: runId, outcome: "succeeded" }));
    expect(fin.status).toBe(201);
    const after = (await readEvents(w.server, w.ws, fin.body.events[0].seq - 1)).filter((e) => e.run_id === runId);
    expect(after.map((e) => [e.type, e.actor.kind, e.ask_id ?? null, e.reason ?? null])).toEqual([
      ["run.finished", "harness", null, null],
      ["run.ask_closed", "system", open, "run_finished"],
    ]);
    expect(await w.run(runId)).toMatchObject({ state: "finished", asks_open: 0, waiting_since: null });
    const [o, q] = await w.asksOf(runId);
    expect(o).toMatchObject({ state: "closed", closed_reason: "run_finished" });
    expect(q).toMatchObject({ state: "rejected", reason: "the run finished before the harness applied the answer" });
    // The harness may still say it applied the answer; an answer now is refused, naming why.
    expect((await w.applied(runId, answeredId)).status).toBe(201);
    expect((await w.asksOf(runId))[1].state).toBe("applied");
    const late = await answer(w.server, runId, open, { decision: "allow" }, w.owner());
    expect([late.status, late.body.code, late.body.closed_reason]).toEqual([409, "ask_closed", "run_finished"]);
  });

  it("[ASK5] a cancel the harness applies ends the run and closes its asks in the same transaction", async () => {
    const runId = await startRun(w.server, w.ws);
    const askId = await ask(w.server, w.ws, permission(w.ws, runId));
    const c = await command(w.server, w.ws, runId, "cancel");
    const acked = await ack(w.server, w.ws, runId, c.body.command_id, "applied");
    const seq = acked.body.events[0].seq;
    const after = (await readEvents(w.server, w.ws, seq - 1)).filter((e) => e.run_id === runId);
    expect(after.map((e) => [e.seq - seq, e.type, e.ask_id ?? null])).toEqual([
      [0, "run.command_acked", null],
      [1, "run.finished", null],
      [2, "run.ask_closed", askId],
    ]);
  });
});

describe("[ASK6] an ask that expires", () => {
  it("[ASK6] past its expiry an ask takes no answer; Chips closes it with the agent's safe default; the agent's own close replays it", async () => {
    const runId = await startRun(w.server, w.ws);
    const body = permission(w.ws, runId, { expires_in_seconds: 1 });
    await ask(w.server, w.ws, body);
    const [a] = await w.asksOf(runId);
    await until(() => Date.now() > Date.parse(a.expires_at), "the ask's expiry passed");
    const late = await answer(w.server, runId, a.ask_id, { decision: "allow" }, w.owner());
    expect([late.status, late.body.code, late.body.closed_reason]).toEqual([409, "ask_closed", "expired"]);
    await until(async () => (await w.asksOf(runId))[0].state === "closed", "Chips closed the expired ask");
    expect((await w.asksOf(runId))[0]).toMatchObject({ closed_reason: "expired", applied_default: "deny" });
    const close = (await readEvents(w.server, w.ws, a.seq)).find(
      (e) => e.type === "run.ask_closed" && e.ask_id === a.ask_id,
    );
    expect(close).toMatchObject({ actor: { kind: "system" }, reason: "expired", applied_default: "deny" });
    const own = await w.harnessPost(
      ev(w.ws, "run.ask_closed", { run_id: runId, ask_id: a.ask_id, reason: "expired", applied_default: "deny" }),
    );
    expect([own.status, own.body.events[0]]).toEqual([200, close]);
    const other = await w.harnessPost(
      ev(w.ws, "run.ask_closed", { run_id: runId, ask_id: a.ask_id, reason: "cancelled" }),
    );
    expect([other.status, other.body.code]).toEqual([409, "ask_closed"]);
    expect(await w.run(runId)).toMatchObject({ asks_open: 0 });
  });
});

describe("[ASK8] an ask says what happens if nobody answers", () => {
  it("[ASK8] an ask left to the agent's terminal reads so, and Chips' close of it applies no deny; one that says nothing reads deny", async () => {
    const runId = await startRun(w.server, w.ws);
    await ask(w.server, w.ws, permission(w.ws, runId, { expires_in_seconds: 1, if_unanswered: "ask_in_terminal" }));
    await ask(w.server, w.ws, permission(w.ws, runId, { expires_in_seconds: 1, summary: "make" }));
    const [terminal, old] = await w.asksOf(runId);
    expect([terminal.request.if_unanswered, old.request.if_unanswered]).toEqual(["ask_in_terminal", undefined]);
    await until(async () => (await w.asksOf(runId)).every((a) => a.state === "closed"), "Chips closed both");
    const [t, o] = await w.asksOf(runId);
    expect(t).toMatchObject({
      closed_reason: "expired",
      applied_default: null,
      reason: "no answer in time: left to the prompt in the agent’s terminal",
    });
    expect(o).toMatchObject({
      closed_reason: "expired",
      applied_default: "deny",
      reason: "no answer in time: the agent’s safe default applies (deny)",
    });
  });
});

describe("[ASK4] asks reach the workspace's people wherever they are", () => {
  it("[ASK4] each ask event goes to the workspace's people sockets as `ask`, never to another workspace's; an ask pushed to a person's page is shown", async () => {
    const mine = await newWorkspace(w.server);
    const theirs = await newWorkspace(w.server);
    const runId = await startRun(w.server, mine);
    // Nobody of the workspace has a page open: the ask stays `asked`.
    const unseen = await ask(w.server, mine, permission(mine, runId));
    const connect = (token: string) => {
      const got: any[] = [];
      const s = io(w.server.url, { transports: ["websocket"], auth: { token }, forceNew: true });
      s.on("ask", (e: any) => got.push(e));
      return { s, got, up: () => until(() => s.connected, "the person's socket connects") };
    };
    const me = connect(mine.person_token);
    const other = connect(theirs.person_token);
    await me.up();
    await other.up();
    expect((await w.asksOf(runId, mine.token))[0].state).toBe("asked");
    const seen = await ask(w.server, mine, permission(mine, runId));
    await until(
      () => me.got.some((e) => e.type === "run.ask_shown" && e.ask_id === seen),
      "the ask pushed, then shown",
    );
    expect(me.got.map((e) => [e.type, e.ask_id])).toEqual([
      ["run.asked", seen],
      ["run.ask_shown", seen],
    ]);
    expect(me.got[1]).toMatchObject({ via: "browser", actor: { kind: "system" } });
    await answer(w.server, runId, unseen, { decision: "deny" }, { token: mine.person_token });
    await until(() => me.got.some((e) => e.type === "run.answered"), "the answer pushed too");
    expect((await w.asksOf(runId, mine.token)).map((a) => a.state)).toEqual(["answered", "shown"]);
    expect(other.got).toEqual([]);
    me.s.disconnect();
    other.s.disconnect();
  });
});
