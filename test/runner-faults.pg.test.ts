import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { io } from "socket.io-client";
import { afterEach, describe, expect, test, vi } from "vitest";
import { jobProcesses, killJobProcesses } from "../lib/agents/runner/process";
import { storedObjects } from "./support/dump";
import { recordingFeed, until } from "./support/feed";
import { lastUserText, outputsSinceUser, say, shell } from "./support/model-server";
import { runnerWorld, type World } from "./support/runner-world";

const ROOT = path.resolve(import.meta.dirname, "..");
let world: World | null = null;
let proc: ChildProcess | null = null;
let jobs: string[] = [];
afterEach(async () => {
  proc?.kill("SIGKILL");
  proc = null;
  for (const j of jobs) await killJobProcesses(j); // the agent a killed runner left behind
  jobs = [];
  await world?.close();
  world = null;
  vi.restoreAllMocks();
});

describe("runner faults and secrets", { timeout: 180_000 }, () => {
  test("[RUN1] the runner killed with SIGKILL mid-run: the run turns unresponsive, then failed when its lease lapses; logs and the last checkpoint are kept", async () => {
    world = await runnerWorld({
      connect: false,
      server: { leaseTtlSeconds: 5, presenceGraceSeconds: 1 },
      script: ({ input }) => ({
        items: [outputsSinceUser(input) === 0 ? shell("printf a > a.txt") : shell("sleep 30")],
      }),
    });
    const w = world;
    // The runner as its own process, through the CLI, as people run it.
    proc = spawn(
      process.execPath,
      [
        path.join(ROOT, "bin/chips.mjs"),
        "runner",
        "--url",
        w.server.url,
        "--token",
        w.runnerToken,
        "--name",
        "doomed runner",
        "--repo",
        `demo=${w.repo}`,
        "--work-dir",
        path.join(w.tmp, "work"),
        ...w.codexConfig.config!.flatMap((c) => ["--codex-config", c]),
        "--codex-model",
        "mock-model",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    proc.stdout!.on("data", (d) => (out += d));
    proc.stderr!.on("data", (d) => (out += d));
    await until(() => out.includes("connected"), `the runner connects (output: ${out})`);

    const presence: any[] = [];
    const feed = recordingFeed(w.server.url, w.ws.space_id, { token: w.ws.person_token });
    // What the room had been told when the runner went offline: "unresponsive is not a state",
    // so no run.finished may precede the offline presence on the feed. Read from the feed, in the
    // order the socket delivered it, rather than by an HTTP poll that a loaded machine can make
    // late enough for the lease to have lapsed meanwhile.
    let finishedBeforeOffline: boolean | null = null;
    feed.feed.socket.on("presence", (p: any) => {
      presence.push(p);
      if (p.harness_id === w.runnerId && p.online === false && finishedBeforeOffline === null)
        finishedBeforeOffline = feed.events.some((e) => e.type === "run.finished" && e.run_id === runId);
    });
    const runId = await w.startRun({ prompt: "Write, then sleep" });
    jobs.push(runId);
    const before = await w.waitRun(
      runId,
      (r) => !!r.checkpoint && /sleep 30/.test(r.status?.verb_phrase ?? ""),
      "a checkpoint, then sleep 30",
    );

    proc.kill("SIGKILL");
    await until(
      () => presence.some((p) => p.harness_id === w.runnerId && p.online === false),
      "the runner shown unresponsive",
    );
    expect(finishedBeforeOffline).toBe(false); // unresponsive is not a state
    const failed = await w.waitRun(runId, (r) => r.state === "finished", "failed when the lease lapses", 30_000);
    expect(failed.outcome).toBe("failed");
    expect(failed.summary).toMatch(/runner lost: its lease lapsed/);
    // Kept: the runner events so far, and the last checkpoint in the repository.
    const rev = await w.runnerEvents(runId);
    expect(rev.map((e: any) => e.kind)).toEqual(expect.arrayContaining(["started", "log", "checkpoint"]));
    expect(failed.checkpoint.sha).toBe(before.checkpoint.sha);
    expect(execFileSync("git", ["cat-file", "-t", failed.checkpoint.sha], { cwd: w.repo }).toString().trim()).toBe(
      "commit",
    );
    feed.feed.stop();

    // The dead runner could not stop its agent; the next runner on this work dir does.
    expect(jobProcesses(runId).length).toBeGreaterThan(0);
    const next = w.makeRunner();
    try {
      await next.connect();
      expect(jobProcesses(runId)).toEqual([]);
      expect(w.logs.some((l) => l.includes(`a previous runner left for ${runId}`))).toBe(true);
    } finally {
      await next.close();
    }
  });

  test("[RN4] a secret reaches the job's environment only: masked in events, artifacts, logs, socket frames and the database", async () => {
    const SECRET = "s3cr3t-Value-9f2e7c";
    const logged: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      vi.spyOn(stream, "write").mockImplementation(((chunk: any, ...rest: any[]) => {
        logged.push(String(chunk));
        return write(chunk, ...rest);
      }) as typeof stream.write);
    }
    for (const m of ["log", "error", "warn", "info"] as const) {
      const orig = console[m].bind(console);
      vi.spyOn(console, m).mockImplementation((...a: unknown[]) => {
        logged.push(a.map(String).join(" "));
        orig(...a);
      });
    }
    world = await runnerWorld({
      runner: { secrets: { SECRET, UNUSED: "never-given-to-this-job" } },
      script: ({ input }) => {
        if (outputsSinceUser(input) === 0)
          return { items: [shell("echo the secret is $SECRET && echo $SECRET > leaked.txt")] };
        // The model repeats what it saw: the runner must mask it on the way to the room.
        const seen = input
          .filter((i: any) => i.type === "function_call_output")
          .map((i: any) => i.output)
          .join(" ");
        return {
          items: [say(`I saw: ${seen.includes(SECRET) ? SECRET : "nothing"} (${lastUserText(input)?.slice(0, 20)})`)],
        };
      },
    });
    const w = world;
    const frames: string[] = [];
    const sock = io(w.server.url, { transports: ["websocket"], auth: { token: w.ws.person_token }, forceNew: true });
    sock.onAny((name, ...args) => frames.push(JSON.stringify([name, ...args])));
    await until(() => sock.connected, "socket connected");
    await new Promise((r) => sock.emit("join", { v: 1, space_id: w.ws.space_id, after_seq: 0 }, r));

    const runId = await w.startRun({
      prompt: "Print the secret",
      secrets: ["SECRET"],
      required_commands: ["echo check sees $SECRET"],
    });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "finished");
    expect(run.outcome).toBe("succeeded");
    // The job did get it: the model saw the real value in the tool output (the model is not Chips).
    expect(JSON.stringify(w.model.requests)).toContain(SECRET);

    // Room events (over HTTP and as socket frames): masked where the output was.
    const all = JSON.stringify(
      await (
        await fetch(`${w.server.url}/api/v1/workspaces/${w.ws.workspace_id}/events?limit=1000`, {
          headers: { authorization: `Bearer ${w.ws.token}` },
        })
      ).json(),
    );
    expect(all).not.toContain(SECRET);
    expect(all).toContain("the secret is [masked:SECRET]");
    expect(all).toContain(`I saw: [masked:SECRET]`);
    await until(() => frames.some((f) => f.includes("run.finished")), "the socket saw the run finish");
    sock.close();
    expect(frames.join("\n")).not.toContain(SECRET);
    expect(frames.join("\n")).toContain("[masked:SECRET]");

    // Artifacts: the diff (the agent wrote it into a file) and the check's output.
    // With DATABASE_URL the store is the objects table (every node reads it); pg_dump shows bytea as hex, so read the bytes.
    const blobs = await storedObjects(w.server.chips.services.database);
    expect(blobs.length).toBeGreaterThanOrEqual(2);
    for (const b of blobs) expect(b.toString("latin1")).not.toContain(SECRET);
    const cs = run.change_set;
    expect((await w.object(runId, cs.diff.sha256)).toString()).toContain("+[masked:SECRET]");
    expect((await w.object(runId, cs.checks[0].output.sha256)).toString()).toBe("check sees [masked:SECRET]\n");

    // The database: a pg_dump of every row.
    const dump = execFileSync(
      "/usr/lib/postgresql/15/bin/pg_dump",
      ["--data-only", w.server.chips.services.config.databaseUrl!],
      { maxBuffer: 256 * 1024 * 1024 },
    ).toString();
    expect(dump).toContain("[masked:SECRET]");
    expect(dump).not.toContain(SECRET);
    // Server and runner log lines (this process holds both).
    expect(logged.join("\n")).not.toContain(SECRET);
  });
});
