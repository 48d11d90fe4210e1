import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, test } from "vitest";
import { eq } from "drizzle-orm";
import { leases } from "../db/schema";
import { jobProcesses } from "../lib/agents/runner/process";
import { until } from "./support/feed";
import { command } from "./support/harness";
import { lastUserText, outputsSinceUser, say, shell } from "./support/model-server";
import { receiptOf, runnerWorld, whileSleeping, type World } from "./support/runner-world";

/**
 * Pause/resume, steer and cancel against the REAL Codex process (scripted model only):
 * receipts reach applied, and afterwards no process holding the run's CHIPS_JOB is alive.
 */
let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** The first turn runs a long command; guidance (resume or steer) gets its own answer. */
function longThen(after: (guidance: string) => ReturnType<typeof shell>) {
  return ({ input }: { input: any[] }) => {
    const said = lastUserText(input) ?? "";
    const k = outputsSinceUser(input);
    if (said.startsWith("Continue the task") || said.startsWith("Guidance from the room")) {
      return { items: [k === 0 ? after(said) : say("Finished after the interruption.")] };
    }
    return { items: [k === 0 ? shell("printf started > started.txt && sleep 30") : say("slept")] };
  };
}

describe("commands reach the real agent", { timeout: 180_000 }, () => {
  test("[RUN1] pause checkpoints and stops the agent (no CHIPS_JOB process left); resume continues the same Codex thread; the lease is renewed throughout", async () => {
    // A 3 s lease: the run outlives it several times over, so only renewals keep it alive.
    world = await runnerWorld({
      script: longThen(() => shell("printf resumed > resumed.txt")),
      server: { leaseTtlSeconds: 3 },
    });
    const w = world;
    const runId = await w.startRun({ prompt: "Sleep, then write" });
    await whileSleeping(w, runId);
    const leaseOf = async () =>
      (await w.server.chips.services.db.select().from(leases).where(eq(leases.runId, runId)))[0];
    const firstExpiry = Date.parse((await leaseOf()).expiresAt);

    const pause = await command(w.server, w.ws, runId, "pause");
    expect(pause.status).toBe(201);
    const paused = await w.waitRun(runId, (r) => r.state === "paused", "paused");
    expect((await receiptOf(w, runId, pause.body.command_id)).receipt).toBe("applied");
    expect(jobProcesses(runId)).toEqual([]);
    // The work so far is checkpointed.
    expect(paused.checkpoint?.sha).toMatch(/^[0-9a-f]{40}$/);
    const worktree = (await w.runnerEvents(runId)).find((e: any) => e.kind === "started").payload.worktree;
    expect(
      execFileSync("git", ["show", "--stat", "--format=", paused.checkpoint.sha], { cwd: worktree }).toString(),
    ).toMatch(/started\.txt/);
    const thread = (await w.runnerEvents(runId)).find((e: any) => e.payload?.session_id).payload.session_id;

    // While paused, the runner keeps renewing: the lease moves past its first expiry.
    await until(
      async () => Date.parse((await leaseOf()).expiresAt) > firstExpiry + 2000,
      "the lease renewed while paused",
      20_000,
    );
    expect((await w.run(runId)).state).toBe("paused");

    const resume = await command(w.server, w.ws, runId, "resume");
    expect(resume.status).toBe(201);
    const done = await w.waitRun(runId, (r) => r.state === "finished", "finished after resume");
    expect(done.outcome).toBe("succeeded");
    expect((await receiptOf(w, runId, resume.body.command_id)).receipt).toBe("applied");
    // The same thread resumed: the resumed request carries the first turn's history.
    const resumed = w.model.requests.find((b) => (lastUserText(b.input) ?? "").startsWith("Continue the task"));
    expect(resumed.input.some((i: any) => i.type === "function_call")).toBe(true);
    const sessions = (await w.runnerEvents(runId))
      .filter((e: any) => e.payload?.session_id)
      .map((e: any) => e.payload.session_id);
    expect(new Set(sessions)).toEqual(new Set([thread]));
    expect(done.change_set.files.map((f: any) => f.path).sort()).toEqual(["resumed.txt", "started.txt"]);
    expect(jobProcesses(runId)).toEqual([]);
  });

  test("[RUN1] steer mid-run: the agent is stopped and resumed with the guidance, the run never leaves running", async () => {
    world = await runnerWorld({ script: longThen(() => shell("printf steered > steered.txt")) });
    const w = world;
    const runId = await w.startRun({ prompt: "Sleep, then listen" });
    await whileSleeping(w, runId);

    const steer = await command(w.server, w.ws, runId, "steer", "write steered.txt instead of sleeping");
    expect(steer.status).toBe(201);
    const done = await w.waitRun(runId, (r) => r.state === "finished", "finished after steering");
    expect(done.outcome).toBe("succeeded");
    expect((await receiptOf(w, runId, steer.body.command_id)).receipt).toBe("applied");
    const guided = w.model.requests.find((b) =>
      (lastUserText(b.input) ?? "").includes("write steered.txt instead of sleeping"),
    );
    expect(guided).toBeTruthy();
    expect(done.change_set.files.map((f: any) => f.path)).toContain("steered.txt");
    expect(jobProcesses(runId)).toEqual([]);
  });

  test("[RUN1] cancel stops the process group (SIGINT first), keeps the evidence, and the run ends cancelled", async () => {
    world = await runnerWorld({ script: longThen(() => say("never")) });
    const w = world;
    const runId = await w.startRun({ prompt: "Sleep forever" });
    await whileSleeping(w, runId);

    const cancel = await command(w.server, w.ws, runId, "cancel");
    expect(cancel.status).toBe(201);
    const done = await w.waitRun(runId, (r) => r.state === "finished", "cancelled");
    expect(done.outcome).toBe("cancelled");
    expect((await receiptOf(w, runId, cancel.body.command_id)).receipt).toBe("applied");
    expect(jobProcesses(runId)).toEqual([]);
    const rev = await w.runnerEvents(runId);
    expect(rev.find((e: any) => e.message.startsWith("agent stopped")).payload.signals[0]).toBe("SIGINT");
    // Evidence kept: the checkpoint with the agent's file, published as the change-set.
    expect(done.change_set.files.map((f: any) => f.path)).toEqual(["started.txt"]);
  });
});
