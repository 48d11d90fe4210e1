import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { newWorkspace, readEvents, type Workspace } from "./support/api";
import { runEvents, waitForRun } from "./support/claude-connect";
import { until } from "./support/feed";
import { command, receipts } from "./support/harness";
import {
  lastUserText,
  outputsSinceUser,
  plan,
  say,
  shell,
  startModelServer,
  type ModelServer,
} from "./support/model-server";
import { startTestServer, type TestServer } from "./support/server";
import { sendToCodex } from "./support/codex-tty";
import { connectedCodex } from "./support/connected-codex";

/**
 * `chips connect codex` with the REAL Codex CLI 0.169 in a pseudo-terminal, as a person
 * runs it (only the model is scripted): each turn typed into Codex is mirrored into the
 * room from the rollout file Codex writes; a room's steer gets in through Codex's message
 * queue ([CDX1]), nothing else does.
 */
let server: TestServer;
let ws: Workspace;
let model: ModelServer;
let tmp: string;
let release: () => void = () => {};
/** A room's steer of the second turn: Codex runs it as the session's next turn. */
const STEER = "Now count to three";
const held = new Promise<void>((r) => (release = r));
beforeAll(async () => {
  server = await startTestServer({ rateLimit: 0 });
  ws = await newWorkspace(server);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "chips-codex-tty-"));
  model = await startModelServer(({ input }) => {
    if (/Generate a concise, single-line task title/.test(lastUserText(input) ?? ""))
      return { items: [say("Count to two")] };
    if (lastUserText(input) === "Count again") return { items: [say("Again: two.")], hold: held };
    if (lastUserText(input) === STEER) return { items: [say("Steered: three.")] };
    switch (outputsSinceUser(input)) {
      case 0:
        return {
          items: [
            plan([
              ["Count one", "in_progress"],
              ["Count two", "pending"],
            ]),
          ],
        };
      case 1:
        return { items: [shell("echo one >> count.txt")] };
      case 2:
        return {
          items: [
            plan([
              ["Count one", "completed"],
              ["Count two", "in_progress"],
            ]),
          ],
        };
      default:
        return { items: [say("Counted to **two**.")] };
    }
  });
});
afterAll(async () => {
  await model?.close();
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it("[UI1] [UI3] [RUN2] [TOOL3] a turn typed into the real Codex CLI is mirrored into the room: prompt as the person's message, plan dots, commands as the typing indicator, each tool call's start and end, the answer, usage; [CDX1] a room's steer reaches the session through Codex's queue and runs as its next turn; other commands are refused", async () => {
  const codex = await connectedCodex({ url: server.url, token: ws.token, tmp, modelUrl: model.url });
  const { tty } = codex;
  const send = (text: string) => sendToCodex(tty, text, (goal, ms) => waitForRun(server.url, ws, goal, ms));
  try {
    const runId = await send("Count to two, please");
    await until(
      async () => (await runEvents(server.url, ws, runId, "run.finished")).length === 1,
      "the turn mirrored to its end",
      120_000,
    );
    await tty.waitFor(/Counted to two/, "the answer in the terminal");
    const events = await runEvents(server.url, ws, runId);
    expect(events[0]).toMatchObject({
      type: "run.started",
      goal_from: "harness",
      goal: "Count to two, please",
      commands: ["steer"],
    });
    expect(events[0].session_ref).toMatch(/^[0-9a-f-]{36}$/);
    expect(events.filter((e: any) => e.type === "run.step").map((e: any) => `${e.step_id}:${e.state}`)).toEqual([
      "todo-0:active",
      "todo-1:pending",
      "todo-0:done",
      "todo-1:active",
    ]);
    expect(events.filter((e: any) => e.type === "run.status").map((e: any) => e.verb_phrase)).toContain(
      "Running echo one >> count.txt…",
    );
    expect(events.filter((e: any) => e.type === "message.posted").map((e: any) => e.text)).toEqual([
      "Counted to **two**.",
    ]);
    // [TOOL3] every function call of the rollout, started and ended: the plan tool twice, the command once.
    const started = events.filter((e: any) => e.type === "tool.started");
    expect(started.map((e: any) => e.tool)).toEqual(["update_plan", "exec_command", "update_plan"]);
    const ran = started[1];
    expect(ran.summary).toBe("echo one >> count.txt");
    const end = events.find((e: any) => e.type === "tool.finished" && e.call_id === ran.call_id);
    // Codex's own report of it: its exit code (here its sandbox may refuse to start the command), its time.
    expect(end).toMatchObject({ exit_code: expect.any(Number), duration_ms: expect.any(Number) });
    expect(end.outcome).toBe(end.exit_code === 0 ? "ok" : "failed");
    expect(events.filter((e: any) => e.type === "tool.finished")).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({
      type: "run.finished",
      outcome: "succeeded",
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
    // [CDX1] Only a steer gets in (Codex's queue): the run declares just that ([RUN2]), and the server refuses a pause.
    const runId2Prompt = "Count again";
    const runId2 = await send(runId2Prompt);
    const refused = await command(server, ws, runId2, "pause");
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "command_not_supported", commands: ["steer"] });
    // A steer while the turn is busy: queued at once (applied), run by Codex as the session's next turn.
    expect((await command(server, ws, runId2, "steer", STEER)).status).toBe(201);
    await until(
      async () => (await receipts(server, ws, runId2)).commands.some((c: any) => c.receipt === "applied"),
      "the steer handed to Codex's queue",
    );
    release();
    await until(
      async () => (await runEvents(server.url, ws, runId2, "run.finished")).length === 1,
      "the second turn's end",
      120_000,
    );
    const steered = await waitForRun(server.url, ws, STEER, 120_000);
    await until(
      async () => (await runEvents(server.url, ws, steered, "run.finished")).length === 1,
      "the steered turn's end",
      120_000,
    );
    await tty.waitFor(/Steered: three/, "the steered answer in the terminal");
    expect((await runEvents(server.url, ws, steered, "message.posted")).map((e: any) => e.text)).toEqual([
      "Steered: three.",
    ]);
    const all = await readEvents(server, ws);
    expect(new Set(all.map((e: any) => e.id)).size).toBe(all.length);
  } finally {
    await codex.close();
  }
}, 240_000);
