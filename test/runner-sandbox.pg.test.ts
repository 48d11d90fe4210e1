import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { jobProcesses } from "../lib/agents/runner/process";
import { readEvents } from "./support/api";
import { claudeWorld, type ClaudeWorld } from "./support/claude-world";
import { bash, edit, read, resultText, say, toolResultsSinceUser, workdirOf, write } from "./support/messages-server";

/**
 * The permission profiles of the Claude adapter, enforced by the runner's bubblewrap
 * sandbox around the REAL `claude` (lib/agents/runner/sandbox.ts), not by the agent.
 */
let world: ClaudeWorld | null = null;
let other: http.Server | null = null;
const made: string[] = [];
afterEach(async () => {
  await world?.close();
  world = null;
  if (other) await new Promise((r) => other!.close(r));
  other = null;
  for (const f of made.splice(0)) fs.rmSync(f, { force: true });
});

/** A bash line that reports whether a TCP port answers (no curl needed). */
const reach = (label: string, port: number) =>
  `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo "${label}: reached" || echo "${label}: unreachable"`;

const logOf = async (w: ClaudeWorld, runId: string) =>
  (await w.runnerEvents(runId)).map((e: any) => `${e.message}\n${e.payload?.output ?? ""}`).join("\n");

describe("the runner's sandbox around Claude Code", { timeout: 180_000 }, () => {
  test("[RN1] workspace-write: writes outside the worktree fail (shell and Write tool, /proc/1/root too), no port but the model's is reachable, and the run shows why", async () => {
    let connections = 0;
    other = http.createServer((_, res) => res.end("ok")).on("connection", () => connections++);
    await new Promise<void>((r) => other!.listen(0, "127.0.0.1", r));
    const otherPort = (other.address() as AddressInfo).port;
    const id = randomUUID();
    const home = path.join(os.homedir(), `chips-escape-${id}.txt`);
    const viaProc = path.join(os.homedir(), `chips-escape-proc-${id}.txt`);
    const viaWrite = path.join(os.homedir(), `chips-escape-write-${id}.txt`);
    made.push(home, viaProc, viaWrite);
    let chipsPort = 0;
    world = await claudeWorld({
      messages: ({ messages, body }) => {
        const results = toolResultsSinceUser(messages);
        const wd = workdirOf(body);
        const repoFile = path.join(path.dirname(path.dirname(path.dirname(wd))), "repo", "README.md");
        switch (results.length) {
          case 0:
            return {
              blocks: [
                bash(
                  [
                    `echo inside > inside.txt`,
                    `echo x > ${home}`,
                    `echo x > /proc/1/root${viaProc}`,
                    `echo x >> ${repoFile}`,
                    `echo x > /tmp/private.txt && echo "tmp: ok"`,
                    reach("other port", otherPort),
                    reach("chips", chipsPort),
                    reach("model", world!.messages.port),
                  ].join("; "),
                ),
              ],
            };
          case 1:
            return { blocks: [write(viaWrite, "escaped\n")] };
          default:
            return { blocks: [say(`Tried. Last: ${resultText(results[results.length - 1]).slice(0, 200)}`)] };
        }
      },
    });
    const w = world;
    chipsPort = Number(new URL(w.server.url).port);
    const runId = await w.startRun({ agent: "claude", prompt: "Try to escape", profile: "workspace-write" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome).toBe("succeeded");

    // Nothing outside the worktree was written; inside it was.
    for (const f of [home, viaProc, viaWrite]) expect(fs.existsSync(f), f).toBe(false);
    expect(fs.readFileSync(path.join(w.repo, "README.md"), "utf8")).toBe(
      "# Demo\n\nA repository for the runner's tests.\n",
    );
    expect(run.change_set.files.map((f: any) => f.path)).toEqual(["inside.txt"]);
    // The run shows why: the shell's errors and the Write tool's EROFS are in its log.
    const log = await logOf(w, runId);
    expect(log).toContain(`${home}: Read-only file system`);
    expect(log).toContain(`/proc/1/root${viaProc}: Read-only file system`); // pid 1 is the sandbox's own init
    expect(log).toContain("tmp: ok");
    expect(log).toMatch(
      new RegExp(`Write ${viaWrite.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} failed: EROFS: read-only file system`),
    );
    // The network: only the model's endpoint is there.
    expect(log).toContain("other port: unreachable");
    expect(log).toContain("chips: unreachable");
    expect(log).toContain("model: reached");
    expect(connections).toBe(0);
    expect(jobProcesses(runId)).toEqual([]);
  });

  test("[RN1] read-only: an edit in the worktree fails, the change-set is empty, the run shows why", async () => {
    world = await claudeWorld({
      messages: ({ messages, body }) => {
        const wd = workdirOf(body);
        switch (toolResultsSinceUser(messages).length) {
          case 0:
            return { blocks: [read(`${wd}/edit-me.txt`)] };
          case 1:
            return { blocks: [edit(`${wd}/edit-me.txt`, "two", "TWO")] };
          case 2:
            return { blocks: [bash("echo more >> edit-me.txt; touch new.txt")] };
          default:
            return { blocks: [say("I could only read.")] };
        }
      },
    });
    const w = world;
    const runId = await w.startRun({ agent: "claude", prompt: "Edit a file", profile: "read-only" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome).toBe("succeeded");
    expect(run.change_set.files).toEqual([]);
    expect(run.change_set.head_sha).toBe(run.change_set.base_sha);
    const worktree = (await w.runnerEvents(runId)).find((e: any) => e.kind === "started").payload.worktree;
    expect(fs.readFileSync(path.join(worktree, "edit-me.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    const log = await logOf(w, runId);
    expect(log).toMatch(/Edit \S+edit-me\.txt failed: EROFS: read-only file system/);
    expect(log).toContain("edit-me.txt: Read-only file system");
    expect(log).toContain("cannot touch 'new.txt': Read-only file system");
  });

  test("[RN1] a machine without bubblewrap: the claude adapter offers no profile, the run is refused with a reason and nothing is launched", async () => {
    world = await claudeWorld({
      messages: () => ({ blocks: [say("must not be asked")] }),
      claude: { bwrap: "/nonexistent/bwrap" },
    });
    const w = world;
    const hello = await w.runner.hello();
    expect(hello.adapters).toEqual([
      {
        agent: "claude",
        profiles: [],
        version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
        models: [],
        providers: [],
      },
    ]);

    const runId = await w.startRun({ agent: "claude", prompt: "Run anyway", profile: "workspace-write" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run is refused");
    expect(run.outcome).toBe("failed");
    expect(run.summary).toBe(
      'Refused by the runner: the claude adapter here cannot enforce the "workspace-write" profile (it enforces: none: bubblewrap not found at /nonexistent/bwrap)',
    );
    const rev = await w.runnerEvents(runId);
    expect(rev).toEqual([expect.objectContaining({ sequence: 1, kind: "failed", payload: { refused: true } })]);
    expect((await readEvents(w.server, w.ws)).filter((e) => e.run_id === runId).map((e) => e.type)).not.toContain(
      "run.started",
    );
    // Nothing launched: the model was never called, no worktree or job dir was made.
    expect(w.messages.seen).toEqual([]);
    expect(fs.existsSync(path.join(w.tmp, "work", "jobs", runId))).toBe(false);
    expect(fs.existsSync(path.join(w.tmp, "work", "worktrees"))).toBe(false);
    expect(jobProcesses(runId)).toEqual([]);
  });
});
