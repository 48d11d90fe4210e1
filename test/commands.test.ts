import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  serverWithWorkspace,
  newHarness,
  newWorkspace,
  post,
  readEvents,
  request,
  runStatus,
  startRun,
  type Workspace,
} from "./support/api";
import { until } from "./support/feed";
import { ack, command, receipts, socketHarness } from "./support/harness";
import { openCommands } from "../lib/server/commands";
import { type TestServer } from "./support/server";

let server: TestServer;
let ws: Workspace;
beforeAll(async () => ({ server, ws } = await serverWithWorkspace({ rateLimit: 0, presenceGraceSeconds: 1 })));
afterAll(() => server?.close());

const run = async (runId: string, w = ws) =>
  (await request(`${server.url}/api/v1/runs/${runId}`, { token: w.token })).body;

describe("[RUN1] commands from buttons and scripts", () => {
  it("[RUN1] pause → delivered over /harness → applied → paused; statuses refused while paused; resume → running", async () => {
    const h = socketHarness(server.url, ws.token);
    await h.connected();
    const runId = await startRun(server, ws);
    const sent = await command(server, ws, runId, "pause");
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      type: "run.command",
      command: "pause",
      run_id: runId,
      actor: { kind: "person", id: ws.person_id },
    });
    expect((await run(runId)).pending).toBe("pausing");
    await until(() => h.commands.some((c) => c.command_id === sent.body.command_id), "the harness got the pause");
    await until(
      async () => (await receipts(server, ws, runId)).commands[0].receipt === "delivered",
      "delivered receipt",
    );
    expect((await run(runId)).state).toBe("running"); // the state changes on the ack, never on the press

    expect((await ack(server, ws, runId, sent.body.command_id, "applied")).status).toBe(201);
    expect(await run(runId)).toMatchObject({ state: "paused", pending: null });
    expect((await receipts(server, ws, runId)).commands[0].receipt).toBe("applied");
    const refused = await post(server, ws.token, runStatus(ws, runId));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("run_paused");

    const resume = await command(server, ws, runId, "resume");
    await until(() => h.commands.some((c) => c.command_id === resume.body.command_id), "the harness got the resume");
    await ack(server, ws, runId, resume.body.command_id, "applied");
    expect((await run(runId)).state).toBe("running");
    h.socket.disconnect();
  });

  it("[RUN1] invalid transitions are 409 invalid_transition; a second state change while one is pending is 409 command_pending", async () => {
    const runId = await startRun(server, ws);
    const resume = await command(server, ws, runId, "resume");
    expect(resume.status).toBe(409);
    expect(resume.body.code).toBe("invalid_transition");
    expect((await command(server, ws, runId, "pause")).status).toBe(201);
    const again = await command(server, ws, runId, "cancel");
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("command_pending");
    expect((await command(server, ws, runId, "steer", "meanwhile, look at the logs")).status).toBe(201); // steer does not change state
    const noText = await command(server, ws, runId, "steer");
    expect(noText.status).toBe(422);
  });

  it("[RUN1] the same key is the same command; a rejected ack clears the pending flag and keeps the reason", async () => {
    const runId = await startRun(server, ws);
    const key = `pause-${runId}`;
    const a = await command(server, ws, runId, "pause", undefined, key);
    const b = await command(server, ws, runId, "pause", undefined, key);
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body).toEqual(a.body);
    await ack(server, ws, runId, a.body.command_id, "rejected", "mid-write: cannot stop here");
    expect(await run(runId)).toMatchObject({ state: "running", pending: null });
    expect((await receipts(server, ws, runId)).commands[0]).toMatchObject({
      receipt: "rejected",
      reason: "mid-write: cannot stop here",
    });
  });

  it("[RUN1] cancel is honest: cancelled only after the harness confirms, then finished by the system", async () => {
    const runId = await startRun(server, ws);
    const c = await command(server, ws, runId, "cancel");
    expect(await run(runId)).toMatchObject({ state: "running", pending: "cancelling" });
    const acked = await ack(server, ws, runId, c.body.command_id, "applied");
    expect(acked.status).toBe(201);
    expect(await run(runId)).toMatchObject({ state: "finished", outcome: "cancelled", pending: null });
    const events = await readEvents(server, ws, 0);
    const fin = events.filter((e) => e.run_id === runId && e.type === "run.finished");
    expect(fin).toHaveLength(1);
    expect(fin[0].actor).toEqual({ kind: "system", id: "system" });
    expect(fin[0].seq).toBe(acked.body.events[0].seq + 1);
  });

  it("[RUN1] acks are idempotent: the same result again is the stored ack; another result is refused", async () => {
    const runId = await startRun(server, ws);
    const c = await command(server, ws, runId, "steer", "try the other branch");
    const first = await ack(server, ws, runId, c.body.command_id, "applied");
    const again = await ack(server, ws, runId, c.body.command_id, "applied");
    expect(again.status).toBe(200);
    expect(again.body.events[0]).toEqual(first.body.events[0]);
    expect((await ack(server, ws, runId, c.body.command_id, "rejected")).status).toBe(409);
  });
});

describe("[RT3] delivery to harnesses that were away, and to harnesses without sockets", () => {
  it("[RT3] a command sent while the harness is disconnected is delivered when it connects", async () => {
    const runId = await startRun(server, ws);
    const c = await command(server, ws, runId, "steer", "focus on the failing test");
    expect((await receipts(server, ws, runId)).commands[0].receipt).toBe("accepted");
    const h = socketHarness(server.url, ws.token);
    await until(() => h.commands.some((x) => x.command_id === c.body.command_id), "resent on connect");
    await until(async () => (await receipts(server, ws, runId)).commands[0].receipt === "delivered", "delivered");
    h.socket.disconnect();
  });

  it("[RT3] a harness that connects while its command is being routed gets it once", async () => {
    // The live route (its read in flight, the socket joining meanwhile) and the resend on
    // connect (its read seeing the command) both reach such a socket; it must get one copy.
    for (let i = 0; i < 12; i++) {
      const other = await newHarness(server, ws, `racer ${i}`);
      const hws = { ...ws, token: other.token, harness_id: other.harness_id };
      const runId = await startRun(server, hws);
      const [first, h] = await Promise.all([
        command(server, hws, runId, "steer", `first ${i}`),
        Promise.resolve(socketHarness(server.url, hws.token)),
      ]);
      await h.connected();
      await until(() => h.commands.some((x) => x.command_id === first.body.command_id), "the first command");
      // Frames reach a socket in the order they were sent: once the second arrives, any second
      // copy of the first has too.
      const second = await command(server, hws, runId, "steer", `second ${i}`);
      await until(() => h.commands.some((x) => x.command_id === second.body.command_id), "the second command");
      expect(h.commands.map((x) => x.text)).toEqual([`first ${i}`, `second ${i}`]);
      h.socket.disconnect();
    }
  });

  it("[RT3] a harness polling GET /api/v1/commands gets its runs' commands, delivered by the poll", async () => {
    const other = await newHarness(server, ws, "poller");
    const pws = { ...ws, token: other.token, harness_id: other.harness_id };
    const runId = await startRun(server, pws);
    const c = await command(server, pws, runId, "pause");
    const poll = await request(`${server.url}/api/v1/commands?after=0`, { token: other.token });
    expect(poll.status).toBe(200);
    expect(poll.body.commands.map((x: any) => x.command_id)).toEqual([c.body.command_id]);
    expect((await receipts(server, pws, runId)).commands[0].receipt).toBe("delivered");
    const next = await request(`${server.url}/api/v1/commands?after=${poll.body.next_after}`, { token: other.token });
    expect(next.body.commands).toEqual([]);
    // Another harness sees none of them.
    expect(
      (await request(`${server.url}/api/v1/commands?after=0`, { token: ws.token })).body.commands.map(
        (x: any) => x.command_id,
      ),
    ).not.toContain(c.body.command_id);
    expect((await request(`${server.url}/api/v1/commands`, { token: ws.person_token })).status).toBe(403);
  });
});

describe("who may command and ack", () => {
  it("a person of one workspace cannot command another's runs; a harness cannot command; a harness acks only its own runs' commands", async () => {
    const other = await newWorkspace(server);
    const runId = await startRun(server, ws);
    const cross = await command(server, other, runId, "pause");
    expect(cross.status).toBe(404);
    expect(cross.body.code).toBe("run_not_found");
    const byHarness = await request(`${server.url}/api/v1/runs/${runId}/commands`, {
      method: "POST",
      token: ws.token,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ command: "pause", idempotency_key: "h" }),
    });
    expect(byHarness.status).toBe(403);
    const c = await command(server, ws, runId, "pause");
    const second = await newHarness(server, ws, "intruder");
    const r = await ack(
      server,
      { ...ws, token: second.token, harness_id: second.harness_id },
      runId,
      c.body.command_id,
      "applied",
    );
    expect(r.status).toBe(403);
  });
});

describe("presence and force-finish", () => {
  it("[RUN1] a run whose harness left past the grace may be force-finished (failed, harness lost); not while it is there", async () => {
    const own = await newHarness(server, ws, "leaver");
    const hws = { ...ws, token: own.token, harness_id: own.harness_id };
    const h = socketHarness(server.url, own.token);
    await h.connected();
    const runId = await startRun(server, hws);
    const early = await request(`${server.url}/api/v1/runs/${runId}/force-finish`, {
      method: "POST",
      token: ws.person_token,
    });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("invalid_transition");
    h.socket.disconnect();
    await until(
      () => server.chips.services.presence.isUnresponsive(own.harness_id),
      "unresponsive past the grace",
      10_000,
    );
    const ff = await request(`${server.url}/api/v1/runs/${runId}/force-finish`, {
      method: "POST",
      token: ws.person_token,
    });
    expect(ff.status).toBe(201);
    expect(ff.body).toMatchObject({
      type: "run.finished",
      outcome: "failed",
      summary: "harness lost",
      actor: { kind: "system" },
    });
    expect(await run(runId)).toMatchObject({ state: "finished", outcome: "failed" });
  });

  it("presence changes reach the rooms of the workspace", async () => {
    const own = await newHarness(server, ws, "blinker");
    const { io } = await import("socket.io-client");
    const browser = io(server.url, { transports: ["websocket"], auth: { token: ws.person_token } });
    const seen: any[] = [];
    browser.on("presence", (p: any) => seen.push(p));
    await until(() => browser.connected, "browser connected");
    const h = socketHarness(server.url, own.token);
    await until(() => seen.some((p) => p.harness_id === own.harness_id && p.online), "online");
    h.socket.disconnect();
    await until(() => seen.some((p) => p.harness_id === own.harness_id && !p.online), "offline past the grace", 10_000);
    browser.disconnect();
  });
});

describe("[RUN1] a run's end settles its open commands", () => {
  it("[RUN1] commands left open when the run finishes are settled (not resent forever); the harness may still ack after finishing", async () => {
    const runId = await startRun(server, ws);
    const steer = await command(server, ws, runId, "steer", "never answered");
    const cancel = await command(server, ws, runId, "cancel");
    // The harness stops and says so itself, then acks the cancel: both allowed ([RUN1]).
    const fin = await post(server, ws.token, {
      ...runStatus(ws, runId),
      type: "run.finished",
      outcome: "cancelled",
      phase: undefined,
      verb_phrase: undefined,
    });
    expect(fin.status).toBe(201);
    expect((await ack(server, ws, runId, cancel.body.command_id, "applied")).status).toBe(201);
    const list = (await receipts(server, ws, runId)).commands;
    expect(list.find((c: any) => c.command_id === cancel.body.command_id)).toMatchObject({ receipt: "applied" });
    expect(list.find((c: any) => c.command_id === steer.body.command_id)).toMatchObject({
      receipt: "rejected",
      reason: "the run finished before the harness answered",
    });
    expect(await run(runId)).toMatchObject({ state: "finished", outcome: "cancelled" });
    // Nothing of that run is left to resend to the harness on its next connect ([RT3]).
    const open = await openCommands(server.chips.services, ws.harness_id);
    expect(open.filter((c) => c.runId === runId)).toEqual([]);
  });
});
