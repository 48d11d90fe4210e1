import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, test } from "vitest";
import { jobProcesses } from "../lib/agents/runner/process";
import { claudeWorld, type ClaudeWorld } from "./support/claude-world";
import { command } from "./support/harness";
import { receiptOf, whileSleeping } from "./support/runner-world";
import { bash, lastUserText, say, toolResultsSinceUser, type Block } from "./support/messages-server";

/**
 * Pause/resume, steer and cancel against the REAL Claude Code process in the runner's
 * sandbox (scripted model only): receipts reach applied, the same session continues, and
 * afterwards no process holding the run's CHIPS_JOB is alive.
 */
let world: ClaudeWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** The first turn runs a long command; guidance (resume or steer) gets its own answer. */
function longThen(after: (guidance: string) => Block) {
  return ({ messages }: { messages: any[] }) => {
    const said = lastUserText(messages) ?? "";
    const k = toolResultsSinceUser(messages).length;
    if (said.startsWith("Continue the task") || said.startsWith("Guidance from the room")) {
      return { blocks: [k === 0 ? after(said) : say("Finished after the interruption.")] };
    }
    return { blocks: [k === 0 ? bash("printf started > started.txt && sleep 30") : say("slept")] };
  };
}

const sessionsOf = async (w: ClaudeWorld, runId: string) =>
  (await w.runnerEvents(runId))
    .filter((e: any) => e.payload?.session_id)
    .map((e: any) => e.payload.session_id as string);

describe("commands reach the real Claude Code", { timeout: 180_000 }, () => {
  test("[RUN1] pause checkpoints and stops the agent (no CHIPS_JOB process left); resume continues the same session", async () => {
    world = await claudeWorld({ messages: longThen(() => bash("printf resumed > resumed.txt")) });
    const w = world;
    const runId = await w.startRun({ agent: "claude", prompt: "Sleep, then write" });
    const worktree = await whileSleeping(w, runId);

    const pause = await command(w.server, w.ws, runId, "pause");
    expect(pause.status).toBe(201);
    const paused = await w.waitRun(runId, (r) => r.state === "paused", "paused");
    expect((await receiptOf(w, runId, pause.body.command_id)).receipt).toBe("applied");
    expect(jobProcesses(runId)).toEqual([]);
    expect(paused.checkpoint?.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(
      execFileSync("git", ["show", "--stat", "--format=", paused.checkpoint.sha], { cwd: worktree }).toString(),
    ).toMatch(/started\.txt/);
    const [session] = await sessionsOf(w, runId);

    const resume = await command(w.server, w.ws, runId, "resume");
    expect(resume.status).toBe(201);
    const done = await w.waitRun(runId, (r) => r.state === "finished", "finished after resume");
    expect(done.outcome).toBe("succeeded");
    expect((await receiptOf(w, runId, resume.body.command_id)).receipt).toBe("applied");
    // The same session resumed (--resume): the guidance alone is the newest user text, after
    // the first prompt as a message of its own (a fresh start would send one prompt with both).
    const resumed = w.messages.requests.find((b) => (lastUserText(b.messages) ?? "").startsWith("Continue the task"));
    expect(JSON.stringify(resumed.messages)).toContain("Sleep, then write");
    expect(new Set(await sessionsOf(w, runId))).toEqual(new Set([session]));
    expect(done.change_set.files.map((f: any) => f.path).sort()).toEqual(["resumed.txt", "started.txt"]);
    expect(jobProcesses(runId)).toEqual([]);
  });

  test("[RUN1] steer mid-run: the agent is stopped and resumed with the guidance, the run never leaves running", async () => {
    world = await claudeWorld({ messages: longThen(() => bash("printf steered > steered.txt")) });
    const w = world;
    const runId = await w.startRun({ agent: "claude", prompt: "Sleep, then listen" });
    await whileSleeping(w, runId);
    const [session] = await sessionsOf(w, runId);

    const steer = await command(w.server, w.ws, runId, "steer", "write steered.txt instead of sleeping");
    expect(steer.status).toBe(201);
    const done = await w.waitRun(runId, (r) => r.state === "finished", "finished after steering");
    expect(done.outcome).toBe("succeeded");
    expect((await receiptOf(w, runId, steer.body.command_id)).receipt).toBe("applied");
    const guided = w.messages.requests.find((b) =>
      (lastUserText(b.messages) ?? "").startsWith("Guidance from the room: write steered.txt instead of sleeping"),
    );
    expect(JSON.stringify(guided.messages)).toContain("Sleep, then listen");
    expect(new Set(await sessionsOf(w, runId))).toEqual(new Set([session]));
    expect(done.change_set.files.map((f: any) => f.path)).toContain("steered.txt");
    expect(jobProcesses(runId)).toEqual([]);
  });

  test("[RUN1] cancel stops the process group (SIGINT first), keeps the evidence, and the run ends cancelled with no CHIPS_JOB process left", async () => {
    // A long SIGINT grace: the claim is that SIGINT reaches the CLI in the sandbox and ends it,
    // not how fast a loaded machine lets it save its session (1.5 s was too short under CI load).
    world = await claudeWorld({
      messages: longThen(() => say("never")),
      runner: { stopGraceMs: { int: 30_000, term: 1500 } },
    });
    const w = world;
    const runId = await w.startRun({ agent: "claude", prompt: "Sleep forever" });
    await whileSleeping(w, runId);

    const cancel = await command(w.server, w.ws, runId, "cancel");
    expect(cancel.status).toBe(201);
    const done = await w.waitRun(runId, (r) => r.state === "finished", "cancelled");
    expect(done.outcome).toBe("cancelled");
    expect((await receiptOf(w, runId, cancel.body.command_id)).receipt).toBe("applied");
    expect(jobProcesses(runId)).toEqual([]);
    const rev = await w.runnerEvents(runId);
    const stopped = rev.find((e: any) => e.message.startsWith("agent stopped"));
    // SIGINT alone was enough: inside the sandbox the CLI still gets it and exits (bwrap's own
    // reaper would ignore it and wait for orphans; lib/agents/runner/sandbox.ts).
    expect(stopped.payload.signals).toEqual(["SIGINT"]);
    // Evidence kept: the checkpoint with the agent's file, published as the change-set.
    expect(done.change_set.files.map((f: any) => f.path)).toEqual(["started.txt"]);
  });
});
