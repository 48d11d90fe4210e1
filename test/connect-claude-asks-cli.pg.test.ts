import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { newWorkspace, request, type Workspace } from "./support/api";
import { answer } from "./support/asks";
import { connectClaude, runEvents, waitForRun, type Connected } from "./support/claude-connect";
import { claudePrint, finalOf } from "./support/claude-print";
import { startClaudeTty, typePrompt } from "./support/claude-tty";
import { until } from "./support/feed";
import {
  bash,
  lastUserText,
  resultText,
  say,
  startMessagesServer,
  toolResultsSinceUser,
  type MessagesServer,
} from "./support/messages-server";
import { freshDatabase, spawnServer, type ServerProcess } from "./support/server";
import type { Tty } from "./support/tty";

/**
 * The REAL Claude Code CLI (2.1.141; only the model is scripted) after `chips connect claude`:
 * interactive in a pseudo-terminal, where its permission dialog and the room race, and under
 * `claude -p`, where nothing would ask. The room answers through the API the room's buttons call.
 */
const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** A command Claude Code 2.1.141 asks about in the terminal ("This command requires approval"). */
const creates = (file: string) => `node -e 'require("fs").writeFileSync("${file}","x")'`;

/** One call per prompt, then `FINAL` with what the model was told. */
function model(): Promise<MessagesServer> {
  return startMessagesServer(({ messages, body }) => {
    if (!body.tools?.some((t: { name?: string }) => t.name === "Bash")) return { blocks: [say("ok")] }; // a side request
    const prompt = lastUserText(messages) ?? "";
    const m = /^Create (\S+)/.exec(prompt);
    if (!m) return { blocks: [say("?")] };
    const results = toolResultsSinceUser(messages);
    if (!results.length) return { blocks: [bash(creates(m[1]))] };
    return { blocks: [say(`FINAL ${m[1]}: ${results.map((r) => resultText(r)).join(" | ")}`)] };
  });
}

/** A fresh database, a Chips server process on it (stopped with the test), a workspace and the model. */
async function world() {
  const db = await freshDatabase();
  cleanup.push(() => db.drop());
  const env = {
    DATABASE_URL: db.databaseUrl ?? "",
    CHIPS_DATA_DIR: db.dataDir,
    PORT: String(await freePort()),
    HOST: "127.0.0.1",
    CHIPS_RATE_LIMIT: "0",
  };
  const srv = await spawnServer(env);
  cleanup.push(() => srv.proc.kill("SIGTERM"));
  const server = { url: srv.url, adminToken: fs.readFileSync(path.join(db.dataDir, "admin-token"), "utf8").trim() };
  const ws = await newWorkspace(server as never);
  const m = await model();
  cleanup.push(() => m.close());
  return { env, srv, ws, m };
}

/**
 * The turn is over in Claude Code too: its Stop hook ran (the run finished in Chips), so the next
 * prompt is not typed into a session still finishing a turn. Without this wait, once on a loaded
 * machine, the composer still held "Create late.txt" after that turn and the next prompt went
 * out as "Create late.txtCreate offline.txt".
 */
const turnOver = (url: string, ws: Workspace, runId: string) =>
  until(async () => (await runEvents(url, ws, runId, "run.finished")).length === 1, "the turn's Stop", 60_000);

async function asksOf(url: string, ws: Workspace, runId: string): Promise<any[]> {
  return (await request(`${url}/api/v1/runs/${runId}/asks`, { token: ws.person_token })).body.asks;
}
async function waitingAsk(url: string, ws: Workspace, runId: string): Promise<any> {
  let found: any = null;
  await until(
    async () => !!(found = (await asksOf(url, ws, runId)).find((a) => ["asked", "shown"].includes(a.state))),
    "an ask waiting for a person",
    90_000,
  );
  return found;
}
const closedOrApplied = (url: string, ws: Workspace, runId: string) =>
  until(
    async () => (await asksOf(url, ws, runId)).every((a) => ["applied", "closed", "rejected"].includes(a.state)),
    "every ask settled",
    60_000,
  );

it("[CON3] [CON4] interactive: Allow and Deny from the room decide the terminal's prompt; the terminal's own answer wins when first; no answer leaves the terminal's prompt; Chips stopped, the session still works", async () => {
  const first = await world();
  const { env, ws, m } = first;
  let srv: ServerProcess = first.srv;
  const c: Connected = await connectClaude(srv.url, ws, ["--ask-seconds", "8"]);
  cleanup.push(() => c.close());
  const tty: Tty = await startClaudeTty({
    project: c.project,
    configDir: path.join(c.project, "..", "claude-config"),
    home: path.join(c.project, "..", "home"),
    modelUrl: m.url,
  });
  cleanup.push(() => tty.close());
  const exists = (f: string) => fs.existsSync(path.join(c.project, f));
  const DIALOG = /Do you want to proceed\?/;

  // Allow in the room: the dialog closes by itself and the command runs.
  typePrompt(tty, "Create allowed.txt");
  const r1 = await waitForRun(srv.url, ws, "Create allowed.txt");
  const a1 = await waitingAsk(srv.url, ws, r1);
  expect(a1.request).toMatchObject({
    kind: "permission",
    tool: "Bash",
    command: creates("allowed.txt"),
    source: "claude-hook",
  });
  await tty.waitFor(DIALOG, "the terminal's own dialog, up meanwhile");
  expect((await answer(srv, r1, a1.ask_id, { decision: "allow" }, { token: ws.person_token })).status).toBe(201);
  await tty.waitFor(/FINAL allowed\.txt/, "the turn's end", 90_000);
  expect(exists("allowed.txt")).toBe(true);
  await closedOrApplied(srv.url, ws, r1);
  expect((await asksOf(srv.url, ws, r1)).map((a) => a.state)).toEqual(["applied"]);

  // Deny in the room: not run, and the model reads the note.
  await turnOver(srv.url, ws, r1);
  typePrompt(tty, "Create denied.txt");
  const r2 = await waitForRun(srv.url, ws, "Create denied.txt");
  const a2 = await waitingAsk(srv.url, ws, r2);
  expect(
    (await answer(srv, r2, a2.ask_id, { decision: "deny", note: "not in this repo" }, { token: ws.person_token }))
      .status,
  ).toBe(201);
  await tty.waitFor(
    /FINAL denied\.txt: A person in the Chips room denied this tool call: not in this repo/,
    "the denial read",
    90_000,
  );
  expect(exists("denied.txt")).toBe(false);
  await closedOrApplied(srv.url, ws, r2);

  // The terminal first: Enter on the dialog while the room's ask waits.
  await turnOver(srv.url, ws, r2);
  typePrompt(tty, "Create terminal.txt");
  const r3 = await waitForRun(srv.url, ws, "Create terminal.txt");
  await waitingAsk(srv.url, ws, r3);
  await tty.waitFor(DIALOG, "the dialog");
  tty.press("Enter");
  await tty.waitFor(/FINAL terminal\.txt/, "the turn's end", 90_000);
  expect(exists("terminal.txt")).toBe(true);
  await closedOrApplied(srv.url, ws, r3);
  expect((await asksOf(srv.url, ws, r3))[0]).toMatchObject({
    state: "closed",
    closed_reason: "answered_elsewhere",
    reason: "answered Allow at the terminal",
  });

  // Nobody answers in 8 s: the ask closes and the terminal's prompt is still there to answer.
  await turnOver(srv.url, ws, r3);
  typePrompt(tty, "Create late.txt");
  const r4 = await waitForRun(srv.url, ws, "Create late.txt");
  await until(async () => (await asksOf(srv.url, ws, r4))[0]?.state === "closed", "the ask expired", 60_000);
  expect((await asksOf(srv.url, ws, r4))[0]).toMatchObject({
    closed_reason: "expired",
    reason: "no answer in 8 s: the terminal's own prompt took over",
  });
  expect(DIALOG.test(tty.screen())).toBe(true);
  tty.press("Enter");
  await tty.waitFor(/FINAL late\.txt/, "the turn's end", 90_000);
  await turnOver(srv.url, ws, r4);
  expect(exists("late.txt")).toBe(true);

  // Chips stopped: the dialog is the terminal's as ever, and the turn's events arrive afterwards.
  srv.proc.kill("SIGTERM");
  await srv.exited;
  typePrompt(tty, "Create offline.txt");
  await tty.waitFor(DIALOG, "the dialog with Chips gone", 90_000);
  tty.press("Enter");
  await tty.waitFor(/FINAL offline\.txt/, "the turn's end", 90_000);
  expect(exists("offline.txt")).toBe(true);
  srv = await spawnServer(env);
  const again = srv;
  cleanup.push(() => again.proc.kill("SIGTERM"));
  const r5 = await waitForRun(srv.url, ws, "Create offline.txt");
  await until(async () => (await runEvents(srv.url, ws, r5, "run.finished")).length === 1, "the turn arrived", 90_000);
  // An ask that could reach no one was never sent ([CON4]); none is left open either way.
  expect((await asksOf(srv.url, ws, r5)).filter((a) => ["asked", "shown"].includes(a.state))).toEqual([]);
}, 480_000);

it("[CON5] claude -p: a call it would refuse waits for the room: Allow → it ran; Deny → the model reads why; Chips unreachable → Claude Code's own default, at once", async () => {
  const { ws, m, srv } = await world();
  const c = await connectClaude(srv.url, ws, ["--ask-seconds", "30"]);
  cleanup.push(() => c.close());
  const claudeP = (prompt: string) => claudePrint({ project: c.project, modelUrl: m.url, prompt });

  const allowed = claudeP("Create p-allowed.txt");
  const r1 = await waitForRun(srv.url, ws, "Create p-allowed.txt");
  const a1 = await waitingAsk(srv.url, ws, r1);
  await answer(srv, r1, a1.ask_id, { decision: "allow" }, { token: ws.person_token });
  expect(finalOf(await allowed)).toMatch(/^FINAL p-allowed\.txt: /);
  expect(fs.existsSync(path.join(c.project, "p-allowed.txt"))).toBe(true);

  const denied = claudeP("Create p-denied.txt");
  const r2 = await waitForRun(srv.url, ws, "Create p-denied.txt");
  const a2 = await waitingAsk(srv.url, ws, r2);
  await answer(srv, r2, a2.ask_id, { decision: "deny", note: "ask Dana first" }, { token: ws.person_token });
  expect(finalOf(await denied)).toBe(
    "FINAL p-denied.txt: A person in the Chips room denied this tool call: ask Dana first",
  );
  expect(fs.existsSync(path.join(c.project, "p-denied.txt"))).toBe(false);
  await closedOrApplied(srv.url, ws, r1);
  await closedOrApplied(srv.url, ws, r2);

  srv.proc.kill("SIGTERM");
  await srv.exited;
  const t0 = Date.now();
  const offline = await claudeP("Create p-offline.txt");
  // Claude Code's own default under -p: refused, as without Chips; and no 30 s wait.
  expect(finalOf(offline)).toMatch(/^FINAL p-offline\.txt: .*requires approval/);
  expect(Date.now() - t0, "no wait for the room").toBeLessThan(25_000);
  expect(fs.existsSync(path.join(c.project, "p-offline.txt"))).toBe(false);
}, 400_000);
