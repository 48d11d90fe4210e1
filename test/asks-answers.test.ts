import { describe, expect, it } from "vitest";
import { newId } from "../lib/core/protocol";
import { ev, newHarness, newWorkspace, post, readEvents, request, startRun } from "./support/api";
import { answer, ask, permission, question } from "./support/asks";
import { ack, command } from "./support/harness";
import { askWorld } from "./support/ask-world";

/** The asks API: a run asks, a person answers: what an ask needs, the first answer wins, who may answer ([ASK1]–[ASK3]). */
const w = askWorld();

describe("[ASK1] a run asks a person", () => {
  it("[ASK1] a permission on a running run is stored with its receipt, and the run says it waits for a person", async () => {
    const runId = await startRun(w.server, w.ws);
    const body = permission(w.ws, runId, { expires_in_seconds: 600, scope: "Bash(rm:*)" });
    const r = await w.harnessPost(body);
    expect(r.status, r.text).toBe(201);
    const stored = r.body.events[0];
    expect(stored).toMatchObject({
      type: "run.asked",
      ask_id: body.ask_id,
      space_id: w.ws.space_id,
      kind: "permission",
    });
    expect(await w.run(runId)).toMatchObject({ asks_open: 1, waiting_since: stored.ts });
    const [a] = await w.asksOf(runId);
    expect(a).toMatchObject({
      ask_id: body.ask_id,
      run_id: runId,
      harness_id: w.ws.harness_id,
      state: "asked",
      seq: stored.seq,
      created_at: stored.ts,
      request: { kind: "permission", tool: "Bash", summary: "rm -rf build/", paths: ["build/"], scope: "Bash(rm:*)" },
      answer: null,
    });
    expect(Date.parse(a.expires_at) - Date.parse(stored.ts)).toBe(600_000);
    // The same key and body again is the stored ask; the same ask id under another key is refused.
    const again = await w.harnessPost(body);
    expect([again.status, again.body.events[0]]).toEqual([200, stored]);
    const taken = await w.harnessPost({ ...body, id: newId("event"), idempotency_key: `other-${body.ask_id}` });
    expect([taken.status, taken.body.code, taken.body.errors[0].pointer]).toEqual([
      409,
      "invalid_transition",
      "/ask_id",
    ]);
  });

  it("[ASK1] only a running run of the sender asks: paused 409, finished 409, a queued run nobody took 403, another harness's 403", async () => {
    const runId = await startRun(w.server, w.ws);
    const pause = await command(w.server, w.ws, runId, "pause");
    await ack(w.server, w.ws, runId, pause.body.command_id, "applied");
    const paused = await w.harnessPost(permission(w.ws, runId));
    expect([paused.status, paused.body.code]).toEqual([409, "run_paused"]);

    const done = await startRun(w.server, w.ws);
    await w.harnessPost(ev(w.ws, "run.finished", { run_id: done, outcome: "succeeded" }));
    const finished = await w.harnessPost(permission(w.ws, done));
    expect([finished.status, finished.body.code]).toEqual([409, "run_finished"]);

    const queued = await request(`${w.server.url}/api/v1/runs`, {
      method: "POST",
      token: w.ws.person_token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        space_id: w.ws.space_id,
        prompt: "p",
        repository: "nowhere",
        idempotency_key: newId("event"),
      }),
    });
    const onQueued = await w.harnessPost(permission(w.ws, queued.body.run_id));
    expect([onQueued.status, onQueued.body.code]).toEqual([403, "forbidden"]);

    const other = await newHarness(w.server, w.ws, "another");
    const theirs = await post(
      w.server,
      other.token,
      permission(w.ws, runId, { actor: { kind: "harness", id: other.harness_id } }),
    );
    expect(theirs.status).toBe(403);
  });

  it("[ASK1] an ask says what it needs: a permission its tool and summary, a question its text and a way to answer", async () => {
    const runId = await startRun(w.server, w.ws);
    const cases: [Record<string, unknown>, string][] = [
      [permission(w.ws, runId, { tool: undefined }), "/tool"],
      [permission(w.ws, runId, { summary: undefined }), "/summary"],
      [permission(w.ws, runId, { question: "why?" }), "/question"],
      [permission(w.ws, runId, { options: [{ id: "y", label: "Yes" }] }), "/options/0/decision"],
      [
        permission(w.ws, runId, {
          options: [
            { id: "y", label: "Yes", decision: "allow" },
            { id: "y", label: "No", decision: "deny" },
          ],
        }),
        "/options/1/id",
      ],
      [question(w.ws, runId, { options: undefined, free_text: false }), "/options"],
      [question(w.ws, runId, { tool: "Bash" }), "/tool"],
      [question(w.ws, runId, { options: [{ id: "a", label: "A", decision: "allow" }] }), "/options/0/decision"],
      [permission(w.ws, runId, { summary: "x".repeat(501) }), "/summary"],
      [permission(w.ws, runId, { expires_in_seconds: 86_401 }), "/expires_in_seconds"],
      [permission(w.ws, runId, { paths: Array.from({ length: 51 }, (_, i) => `f${i}`) }), "/paths"],
    ];
    for (const [body, pointer] of cases) {
      const r = await w.harnessPost(body);
      expect([r.status, r.body.code], JSON.stringify(body)).toEqual([422, "validation_failed"]);
      expect(r.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
    expect(await w.asksOf(runId)).toEqual([]);
    expect((await request(`${w.server.url}/schemas/run.asked.json`)).body.title).toBe("run.asked");
  });
});

describe("[ASK2] the first answer wins", () => {
  it("[ASK2] an answer is stored for the person; a second gets 409 ask_closed naming who answered what; the same key is a replay", async () => {
    const runId = await startRun(w.server, w.ws);
    const askId = await ask(w.server, w.ws, permission(w.ws, runId));
    const first = await answer(
      w.server,
      runId,
      askId,
      { decision: "allow", idempotency_key: "first" },
      { headers: w.member.headers },
    );
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      type: "run.answered",
      ask_id: askId,
      decision: "allow",
      option_id: "allow",
      actor: { kind: "person", id: w.member.personId },
    });
    const replay = await answer(
      w.server,
      runId,
      askId,
      { decision: "allow", idempotency_key: "first" },
      { headers: w.member.headers },
    );
    expect([replay.status, replay.body]).toEqual([200, first.body]);
    const second = await answer(w.server, runId, askId, { decision: "deny" }, w.owner());
    expect([second.status, second.body.code]).toEqual([409, "ask_closed"]);
    expect(second.body.detail).toMatch(/^Dana already answered Allow at /);
    expect(second.body).toMatchObject({
      ask_id: askId,
      state: "answered",
      answered_by_name: "Dana",
      answer_label: "Allow",
      answer: { person_id: w.member.personId, decision: "allow", at: first.body.ts, seq: first.body.seq },
    });
    expect(await w.run(runId)).toMatchObject({ asks_open: 0, waiting_since: null });
    expect((await w.asksOf(runId))[0]).toMatchObject({ state: "answered", answer: { person_id: w.member.personId } });
  });

  it("[ASK2] two people answering the same ask at once: exactly one 201, the other is told who won", async () => {
    const runId = await startRun(w.server, w.ws);
    for (let i = 0; i < 8; i++) {
      const askId = await ask(w.server, w.ws, permission(w.ws, runId));
      const [a, b] = await Promise.all([
        answer(w.server, runId, askId, { decision: "allow" }, { headers: w.member.headers }),
        answer(w.server, runId, askId, { decision: "deny" }, w.owner()),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const [won, lost] = a.status === 201 ? [a, b] : [b, a];
      expect(lost.body.answer.seq).toBe(won.body.seq);
      expect(lost.body.answered_by_name).toBe(won === a ? "Dana" : "Owner");
    }
    const answers = (await readEvents(w.server, w.ws, 0)).filter(
      (e) => e.run_id === runId && e.type === "run.answered",
    );
    expect(answers).toHaveLength(8);
  });

  it("[ASK2] an answer fits what was asked; the w.server fills in the option, the decision and what 'for this run' covers", async () => {
    const runId = await startRun(w.server, w.ws);
    const plain = await ask(w.server, w.ws, permission(w.ws, runId));
    const bad: [Record<string, unknown>, string][] = [
      [{}, "/decision"],
      [{ decision: "allow", text: "sure" }, "/text"],
      [{ option_id: "maybe" }, "/option_id"],
      [{ decision: "deny", option_id: "allow" }, "/decision"],
    ];
    for (const [body, pointer] of bad) {
      const r = await answer(w.server, runId, plain, body, w.owner());
      expect([r.status, r.body.code, r.body.errors?.[0]?.pointer], JSON.stringify(body)).toEqual([
        422,
        "validation_failed",
        pointer,
      ]);
    }
    const forRun = await answer(
      w.server,
      runId,
      plain,
      { decision: "allow_for_run", note: "build/ is ours" },
      w.owner(),
    );
    expect(forRun.body).toMatchObject({
      decision: "allow_for_run",
      option_id: "allow_for_run",
      scope: "Bash",
      note: "build/ is ours",
    });

    const own = await ask(
      w.server,
      w.ws,
      permission(w.ws, runId, {
        scope: "Bash(rm:*)",
        options: [
          { id: "yes", label: "Yes", decision: "allow" },
          { id: "always", label: "Yes, and don't ask again for rm", decision: "allow_for_run" },
          { id: "no", label: "No, and tell Claude what to do differently", decision: "deny" },
        ],
      }),
    );
    const notOffered = await ask(
      w.server,
      w.ws,
      permission(w.ws, runId, { options: [{ id: "no", label: "No", decision: "deny" }] }),
    );
    expect((await answer(w.server, runId, notOffered, { decision: "allow" }, w.owner())).body.errors[0].pointer).toBe(
      "/decision",
    );
    const chosen = await answer(w.server, runId, own, { option_id: "always" }, w.owner());
    expect(chosen.body).toMatchObject({ decision: "allow_for_run", option_id: "always", scope: "Bash(rm:*)" });

    const q = await ask(w.server, w.ws, question(w.ws, runId));
    expect((await answer(w.server, runId, q, { decision: "allow" }, w.owner())).body.errors[0].pointer).toBe(
      "/decision",
    );
    expect((await answer(w.server, runId, q, { option_id: "mysql" }, w.owner())).body.errors[0].pointer).toBe(
      "/option_id",
    );
    expect((await answer(w.server, runId, q, {}, w.owner())).body.errors[0].pointer).toBe("/option_id");
    const typed = await answer(w.server, runId, q, { text: "PGlite, then PostgreSQL in CI" }, w.owner());
    expect(typed.body).toMatchObject({ text: "PGlite, then PostgreSQL in CI" });
    const strict = await ask(w.server, w.ws, question(w.ws, runId, { free_text: false }));
    expect((await answer(w.server, runId, strict, { text: "mine" }, w.owner())).body.errors[0].pointer).toBe("/text");
    expect((await answer(w.server, runId, strict, { option_id: "pg" }, w.owner())).status).toBe(201);
    expect((await w.asksOf(runId)).map((a) => a.state)).toEqual([
      "answered",
      "answered",
      "asked",
      "answered",
      "answered",
    ]);
  });

  it("[ASK2] an unknown ask, or another run's, is 404 ask_not_found; another workspace's run is 404 run_not_found", async () => {
    const runId = await startRun(w.server, w.ws);
    const other = await startRun(w.server, w.ws);
    const askId = await ask(w.server, w.ws, permission(w.ws, other));
    expect((await answer(w.server, runId, askId, { decision: "allow" }, w.owner())).body.code).toBe("ask_not_found");
    expect((await answer(w.server, runId, newId("ask"), { decision: "allow" }, w.owner())).body.code).toBe(
      "ask_not_found",
    );
    expect((await answer(w.server, runId, "ask_nope", { decision: "allow" }, w.owner())).body.code).toBe(
      "ask_not_found",
    );
    const elsewhere = await newWorkspace(w.server);
    const r = await answer(w.server, other, askId, { decision: "allow" }, { token: elsewhere.person_token });
    expect([r.status, r.body.code]).toEqual([404, "run_not_found"]);
  });
});

describe("[ASK3] who answers", () => {
  it("[ASK3] a w.viewer cannot answer; a harness cannot send run.answered or run.ask_shown; nothing is stored", async () => {
    const runId = await startRun(w.server, w.ws);
    const askId = await ask(w.server, w.ws, permission(w.ws, runId));
    const byViewer = await answer(w.server, runId, askId, { decision: "allow" }, { headers: w.viewer.headers });
    expect([byViewer.status, byViewer.body.code]).toEqual([403, "forbidden"]);
    const byHarness = await answer(w.server, runId, askId, { decision: "allow" }, { token: w.ws.token });
    expect(byHarness.status).toBe(403);
    for (const type of ["run.answered", "run.ask_shown"]) {
      const r = await w.harnessPost(
        ev(w.ws, type, { run_id: runId, ask_id: askId, decision: "allow", via: "browser" }),
      );
      expect([type, r.status]).toEqual([type, 403]);
    }
    // A w.viewer reads the ask and the inbox.
    expect(
      (await request(`${w.server.url}/api/v1/runs/${runId}/asks/${askId}`, { headers: w.viewer.headers })).body.state,
    ).toBe("asked");
    expect((await w.asksOf(runId))[0].state).toBe("asked");
  });
});
