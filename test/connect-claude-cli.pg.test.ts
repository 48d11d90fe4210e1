import fs from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { newWorkspace, readEvents } from "./support/api";
import { connectClaude, runEvents, waitForRun, type Connected } from "./support/claude-connect";
import { startClaudeTty, typePrompt } from "./support/claude-tty";
import { until } from "./support/feed";
import { bash, lastUserText, say, startMessagesServer, toolResultsSinceUser } from "./support/messages-server";
import { freePort, freshDatabase, spawnServer, type ServerProcess } from "./support/server";
import type { Tty } from "./support/tty";

/**
 * The REAL Claude Code CLI (2.1.141, interactive, in a pseudo-terminal) connected with
 * `chips connect claude`, and the Chips server stopped in the middle of its turn: the
 * terminal session goes on as if nothing happened, and when Chips is back every queued
 * event arrives, in order, once.
 */
const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

it("[TOOL3] with the server stopped mid-turn the terminal session goes on; queued events — each tool call's start and end among them — arrive in order, once, when it returns", async () => {
  const db = await freshDatabase();
  cleanup.push(() => db.drop());
  const port = await freePort();
  const env = {
    DATABASE_URL: db.databaseUrl ?? "",
    CHIPS_DATA_DIR: db.dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    CHIPS_RATE_LIMIT: "0",
  };
  let srv: ServerProcess = await spawnServer(env);
  cleanup.push(() => srv.proc.kill("SIGTERM"));
  const server = { url: srv.url, adminToken: fs.readFileSync(path.join(db.dataDir, "admin-token"), "utf8").trim() };
  const ws = await newWorkspace(server as never);

  let release!: () => void;
  const away = new Promise<void>((r) => (release = r));
  const model = await startMessagesServer(({ messages, body }) => {
    if (!body.tools?.some((t: { name?: string }) => t.name === "Bash")) return { blocks: [say("ok")] }; // a side request (a title…), not the turn
    if (lastUserText(messages) !== "Work through the outage") return { blocks: [say("?")] };
    switch (toolResultsSinceUser(messages).length) {
      case 0:
        return { blocks: [bash("echo one >> log.txt")] };
      case 1:
        return { blocks: [bash("echo two >> log.txt")], hold: away }; // sent once Chips is down
      case 2:
        return { blocks: [bash("echo three >> log.txt")] };
      default:
        return { blocks: [say("Done while Chips was away.")] };
    }
  });
  cleanup.push(() => model.close());
  const c: Connected = await connectClaude(srv.url, ws, [], '{"permissions":{"allow":["Bash"]}}');
  cleanup.push(() => c.close());
  const tty: Tty = await startClaudeTty({
    project: c.project,
    configDir: path.join(c.project, "..", "claude-config"),
    home: path.join(c.project, "..", "home"),
    modelUrl: model.url,
  });
  cleanup.push(() => tty.close());

  typePrompt(tty, "Work through the outage");
  const runId = await waitForRun(srv.url, ws, "Work through the outage");
  await until(
    async () => (await runEvents(srv.url, ws, runId, "run.status")).length >= 1,
    "the first command's status",
  );

  srv.proc.kill("SIGTERM");
  await srv.exited;
  release();
  // The terminal goes on: the commands run and the answer lands, with Chips gone.
  await tty.waitFor(/Done while Chips was away/, "the answer in the terminal", 90_000);
  expect(fs.readFileSync(path.join(c.project, "log.txt"), "utf8")).toBe("one\ntwo\nthree\n");
  const owed = () =>
    fs
      .readdirSync(path.join(c.root, "state"))
      .filter((f) => f.endsWith(".json"))
      .reduce((n, f) => n + JSON.parse(fs.readFileSync(path.join(c.root, "state", f), "utf8")).outbox.length, 0);
  await until(
    () =>
      owed() > 0 &&
      fs.readdirSync(path.join(c.root, "spool")).filter((f) => !f.startsWith(".")).length === 0 &&
      owed() >= 7,
    "the turn queued on disk",
    30_000,
  );

  srv = await spawnServer(env);
  expect(srv.url).toBe(server.url);
  await until(
    async () => (await runEvents(srv.url, ws, runId, "run.finished")).length === 1,
    "the queued events delivered",
    90_000,
  );
  const events = await runEvents(srv.url, ws, runId);
  // Each Bash call: its start ([TOOL3]), the typing indicator, its end.
  const call = ["tool.started", "run.status", "tool.finished"];
  expect(events.map((e: any) => e.type)).toEqual([
    "run.started",
    ...call,
    ...call,
    ...call,
    "message.posted",
    "run.finished",
  ]);
  const ends = events.filter((e: any) => e.type === "tool.finished");
  expect(events.filter((e: any) => e.type === "tool.started").map((e: any) => [e.tool, e.summary])).toEqual([
    ["Bash", "echo one >> log.txt"],
    ["Bash", "echo two >> log.txt"],
    ["Bash", "echo three >> log.txt"],
  ]);
  // The real CLI's PostToolUse carries the tool_use_id and its own time.
  for (const e of ends) expect(e).toMatchObject({ outcome: "ok", exit_code: 0, duration_ms: expect.any(Number) });
  expect(new Set(ends.map((e: any) => e.call_id)).size).toBe(3);
  expect(events.filter((e: any) => e.type === "run.status").map((e: any) => e.verb_phrase)).toEqual([
    "Running echo one >> log.txt…",
    "Running echo two >> log.txt…",
    "Running echo three >> log.txt…",
  ]);
  expect(events.find((e: any) => e.type === "message.posted").text).toBe("Done while Chips was away.");
  expect(events.at(-1)).toMatchObject({ outcome: "succeeded", usage: { input_tokens: expect.any(Number) } });
  const all = await readEvents(srv, ws);
  expect(new Set(all.map((e: any) => e.id)).size).toBe(all.length);
  expect(new Set(all.map((e: any) => e.idempotency_key)).size).toBe(all.length);
}, 240_000);
