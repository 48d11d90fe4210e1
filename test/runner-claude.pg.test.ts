import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { io } from "socket.io-client";
import { afterEach, describe, expect, test, vi } from "vitest";
import { readEvents } from "./support/api";
import { claudeWorld, type ClaudeWorld } from "./support/claude-world";
import { storedObjects } from "./support/dump";
import { until } from "./support/feed";
import {
  bash,
  edit,
  read,
  resultText,
  say,
  todo,
  toolResultsSinceUser,
  workdirOf,
  write,
} from "./support/messages-server";

/**
 * The runner with the REAL Claude Code CLI (2.1.141) inside the runner's bubblewrap
 * sandbox, in temporary git repos, against a scripted Messages API on 127.0.0.1, through
 * the real server: the model's choices are the only thing scripted.
 */
let world: ClaudeWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
  vi.restoreAllMocks();
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

describe("runner + real Claude Code CLI", { timeout: 180_000 }, () => {
  test("[RN2] [RN3] the agent adds, edits, deletes and adds a binary file: plan dots from TodoWrite, status, messages, cost, the diff equals git diff --binary, a failing required command is a failed check", async () => {
    world = await claudeWorld({
      messages: ({ messages, body }) => {
        const wd = workdirOf(body);
        switch (toolResultsSinceUser(messages).length) {
          case 0:
            return {
              blocks: [
                todo([
                  ["Write the files", "in_progress"],
                  ["Tidy up", "pending"],
                ]),
              ],
            };
          case 1:
            return {
              blocks: [
                bash(
                  "printf 'hello\\n' > added.txt && rm delete-me.txt && printf '\\x89PNG\\r\\n\\0\\0' > blob.bin && head -c 64 /dev/urandom >> blob.bin",
                ),
              ],
            };
          case 2:
            return { blocks: [read(`${wd}/edit-me.txt`)] };
          case 3:
            return { blocks: [edit(`${wd}/edit-me.txt`, "two", "TWO")] };
          case 4:
            return { blocks: [write(`${wd}/notes.md`, "# Notes\nwritten through Write\n")] };
          case 5:
            return {
              blocks: [
                todo([
                  ["Write the files", "completed"],
                  ["Tidy up", "completed"],
                ]),
              ],
            };
          default:
            return { blocks: [say("All **done**: five files changed.")] };
        }
      },
    });
    const w = world;
    const runId = await w.startRun({
      agent: "claude",
      prompt: "Change the files",
      required_commands: ["grep -q hello added.txt", "echo checking && false"],
    });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");

    expect(run.outcome).toBe("failed");
    expect(run.summary).toMatch(/1 required command\(s\) failed/);
    expect(run.runner).toEqual({ id: w.runnerId, name: "test runner" });
    // usage and total_cost_usd from the result line.
    expect(run.usage.input_tokens).toBeGreaterThan(0);
    expect(run.usage.output_tokens).toBeGreaterThan(0);
    expect(run.usage.cost_usd).toBeGreaterThan(0);
    // The plan from TodoWrite, every dot done.
    expect(run.plan.map((s: any) => [s.step_id, s.title, s.state])).toEqual([
      ["todo-0", "Write the files", "done"],
      ["todo-1", "Tidy up", "done"],
    ]);

    const events = (await readEvents(w.server, w.ws)).filter((e) => e.run_id === runId || e.type === "message.posted");
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(["message.posted", "run.queued", "run.assigned", "run.started"]);
    const phrases = events.filter((e) => e.type === "run.status").map((e) => e.verb_phrase);
    expect(phrases).toContainEqual(expect.stringMatching(/^Running printf/));
    expect(phrases.filter((p) => p === "Editing edit-me.txt…")).toHaveLength(1); // the Edit, not the Read before it
    expect(phrases).toContain("Editing notes.md…");
    expect(events.some((e) => e.type === "run.step" && e.step_id === "todo-0" && e.state === "active")).toBe(true);
    expect(events.some((e) => e.type === "run.step" && e.step_id === "todo-1" && e.state === "pending")).toBe(true);
    const said = events.filter((e) => e.type === "message.posted" && e.actor.id === w.runnerId);
    expect(said.map((e) => e.text)).toEqual(["All **done**: five files changed."]);
    expect(types[types.length - 1]).toBe("run.finished");

    // [RN2] runner events 1, 2, 3…; the session id of system/init is logged.
    const rev = await w.runnerEvents(runId);
    expect(rev.map((e: any) => e.sequence)).toEqual(rev.map((_: any, i: number) => i + 1));
    expect(rev[0]).toMatchObject({ kind: "started", payload: { agent: "claude", profile: "workspace-write" } });
    expect(rev.some((e: any) => /^[0-9a-f-]{36}$/.test(e.payload?.session_id ?? ""))).toBe(true);
    expect(rev.some((e: any) => e.kind === "checkpoint")).toBe(true);
    expect(rev.find((e: any) => e.message.startsWith("$ printf")).payload.exit_code).toBe(0);
    expect(rev[rev.length - 1].kind).toBe("failed");
    const cs = rev.find((e: any) => e.kind === "change-set").payload;

    const byPath = Object.fromEntries(cs.files.map((f: any) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(["added.txt", "blob.bin", "delete-me.txt", "edit-me.txt", "notes.md"]);
    expect(byPath["added.txt"]).toMatchObject({ status: "added", additions: 1, deletions: 0, binary: false });
    expect(byPath["edit-me.txt"]).toMatchObject({ status: "modified", additions: 1, deletions: 1 });
    expect(byPath["delete-me.txt"]).toMatchObject({ status: "deleted", deletions: 1 });
    expect(byPath["notes.md"]).toMatchObject({ status: "added", additions: 2 });
    expect(byPath["blob.bin"]).toMatchObject({ status: "added", binary: true, additions: null });

    // [RN3] the published diff is exactly git diff --binary base..head after the final checkpoint.
    const worktree = cs.cleanup.worktree;
    expect(execFileSync("git", ["rev-parse", "HEAD"], { cwd: worktree }).toString().trim()).toBe(cs.head_sha);
    const expected = execFileSync("git", ["diff", "--binary", `${cs.base_sha}..${cs.head_sha}`], { cwd: worktree });
    expect((await w.object(runId, cs.diff.sha256)).equals(expected)).toBe(true);
    expect(cs.diff.bytes).toBe(expected.length);

    expect(cs.checks.map((c: any) => [c.command, c.passed, c.exit_code])).toEqual([
      ["grep -q hello added.txt", true, 0],
      ["echo checking && false", false, 1],
    ]);
    expect((await w.object(runId, cs.checks[1].output.sha256)).toString()).toBe("checking\n");
    // The guidance reached the agent from its own config dir, not from the worktree.
    expect(JSON.stringify(w.messages.requests[0].messages)).toContain(`You are working on run ${runId}`);
    expect(execFileSync("git", ["ls-files"], { cwd: worktree }).toString()).not.toMatch(/CLAUDE\.md/);
  });

  test("an API error the CLI gives up on (is_error) fails the run with the reason", async () => {
    world = await claudeWorld({
      messages: () => ({
        blocks: [],
        error: { status: 400, type: "invalid_request_error", message: "prompt is too long" },
      }),
    });
    const runId = await world.startRun({ agent: "claude", prompt: "Try anyway" });
    const run = await world.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome).toBe("failed");
    expect(run.summary).toMatch(/^claude: Prompt is too long/);
    const rev = await world.runnerEvents(runId);
    expect(rev.map((e: any) => e.message)).toContain("turn failed: claude: Prompt is too long");
    expect(rev[rev.length - 1].kind).toBe("failed");
    // The CLI's made-up assistant message is not drawn as the agent's words.
    const said = (await readEvents(world.server, world.ws)).filter(
      (e) => e.type === "message.posted" && e.actor.id === world!.runnerId,
    );
    expect(said).toEqual([]);
  });

  test("a tool the runner does not allow is denied (permission_denials): the run fails and says which (the model endpoint named by hostname)", async () => {
    world = await claudeWorld({
      byName: true,
      messages: ({ messages }) =>
        toolResultsSinceUser(messages).length === 0
          ? {
              blocks: [
                {
                  type: "tool_use",
                  id: "toolu_fetch1",
                  name: "WebFetch",
                  input: { url: "http://example.invalid/", prompt: "read it" },
                },
              ],
            }
          : { blocks: [say("I could not fetch it.")] },
    });
    const runId = await world.startRun({ agent: "claude", prompt: "Fetch a page" });
    const run = await world.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome).toBe("failed");
    expect(run.summary).toBe("claude was denied: WebFetch http://example.invalid/");
    expect(world.claudeConfig.baseUrl).toMatch(/^http:\/\/localhost:\d+$/);
    const rev = await world.runnerEvents(runId);
    expect(rev.map((e: any) => e.message)).toContain(
      "WebFetch not run: Claude requested permissions to use WebFetch, but you haven't granted it yet.",
    );
    const denied = toolResultsSinceUser(world.messages.requests[1].messages)[0];
    expect(denied).toMatchObject({ is_error: true, tool_use_id: "toolu_fetch1" });
  });

  test("[RN4] the secret the agent prints is in no DB row, artifact, server log line or socket frame: masked where the output was", async () => {
    const value = `chips-secret-${randomUUID()}`;
    // Everything this process prints (the server and the runner run here) is captured.
    const printed: string[] = [];
    for (const m of ["log", "error", "warn", "info", "debug"] as const)
      vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void printed.push(a.map(String).join(" ")));
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      vi.spyOn(stream, "write").mockImplementation(
        ((chunk: any, ...rest: any[]) => (printed.push(String(chunk)), write(chunk, ...rest))) as any,
      );
    }
    world = await claudeWorld({
      messages: ({ messages }) => {
        const results = toolResultsSinceUser(messages);
        if (results.length === 0) return { blocks: [bash("echo $SECRET && echo $SECRET > leaked.txt")] };
        // The model repeats what it saw (the last line: a login shell may print noise first).
        return { blocks: [say(`The command printed: ${resultText(results[0]).trim().split("\n").pop()}`)] };
      },
      runner: { secrets: { SECRET: value } },
    });
    const w = world;
    // A person's socket in the room, recording every raw frame.
    const frames: string[] = [];
    const socket = io(w.server.url, {
      path: "/socket.io",
      transports: ["websocket"],
      forceNew: true,
      auth: { token: w.ws.person_token },
    });
    socket.io.on("open", () =>
      socket.io.engine.on(
        "data",
        (d: unknown) => void frames.push(typeof d === "string" ? d : Buffer.from(d as ArrayBuffer).toString("latin1")),
      ),
    );
    try {
      await until(() => socket.connected, "the person's socket connects");
      expect(
        await socket.timeout(10_000).emitWithAck("join", { v: 1, space_id: w.ws.space_id, after_seq: 0 }),
      ).toMatchObject({ ok: true });
      const runId = await w.startRun({
        agent: "claude",
        prompt: "Print the secret",
        secrets: ["SECRET"],
        required_commands: ["echo $SECRET"],
      });
      const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
      expect(run.outcome).toBe("succeeded");
      await until(() => frames.some((f) => f.includes("run.finished")), "the socket got run.finished");

      // The agent really printed it: the model (not Chips) saw the value.
      expect(JSON.stringify(w.messages.requests)).toContain(value);

      // Masked where the output was: the command's log, the agent's message, the check output, the diff.
      const rev = await w.runnerEvents(runId);
      expect(rev.find((e: any) => e.message.startsWith("$ echo $SECRET &&")).payload.output).toContain(
        "[masked:SECRET]",
      );
      const said = (await readEvents(w.server, w.ws)).find(
        (e) => e.type === "message.posted" && e.actor.id === w.runnerId,
      );
      expect(said.text).toBe("The command printed: [masked:SECRET]");
      const cs = rev.find((e: any) => e.kind === "change-set").payload;
      expect((await w.object(runId, cs.checks[0].output.sha256)).toString()).toBe("[masked:SECRET]\n");
      expect((await w.object(runId, cs.diff.sha256)).toString()).toContain("+[masked:SECRET]");

      // Nowhere on Chips' side: every DB row (pg_dump), every stored object, every printed line, every frame.
      const dump = execFileSync(
        "/usr/lib/postgresql/15/bin/pg_dump",
        ["--no-owner", w.server.chips.services.config.databaseUrl!],
        { maxBuffer: 256 << 20 },
      ).toString();
      expect(dump).toContain("[masked:SECRET]");
      expect(dump).not.toContain(value);
      for (const f of filesUnder(w.server.chips.services.config.dataDir))
        expect(fs.readFileSync(f).includes(value), f).toBe(false);
      // With DATABASE_URL the store is the objects table; pg_dump shows bytea as hex, so read the bytes.
      const blobs = await storedObjects(w.server.chips.services.database);
      expect(blobs.length).toBeGreaterThan(0);
      for (const b of blobs) expect(b.includes(value)).toBe(false);
      expect(printed.join("\n")).not.toContain(value);
      expect(w.logs.join("\n")).not.toContain(value);
      expect(frames.join("\n")).toContain("[masked:SECRET]");
      expect(frames.join("\n")).not.toContain(value);
    } finally {
      socket.close();
    }
  });
});
