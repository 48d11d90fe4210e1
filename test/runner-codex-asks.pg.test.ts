import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { askUser, lastUserText, outputsSinceUser, plan, say, shell } from "./support/model-server";
import { answerAs, askTrail, asksOf, waitingAsk, worktreeOf } from "./support/run-asks";
import { runnerWorld, type World } from "./support/runner-world";

/**
 * The `ask` profile with the REAL Codex CLI (0.169.0) under `codex exec`, through the real
 * server (only the model is scripted): Codex's own approvals stay off (exec never asks), and a
 * PreToolUse hook the runner wrote into the job's CODEX_HOME asks the job over its socket
 * before each shell command; the job asks the room.
 */
let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** What the model was told for each call, in order (the `function_call_output`s of its last request). */
function outputsOf(w: World, prompt: string): string[] {
  const last = w.model.requests.filter((r) => lastUserText(r.input) === prompt).at(-1);
  return (last?.input ?? []).filter((i: any) => i.type === "function_call_output").map((i: any) => String(i.output));
}

function script(byPrompt: Record<string, Array<() => Record<string, unknown>>>) {
  return ({ input }: { input: any[] }) => {
    const steps = byPrompt[lastUserText(input) ?? ""];
    if (!steps) return { items: [say("?")] };
    const next = steps[outputsSinceUser(input)];
    return { items: [next ? next() : say("Done.")] };
  };
}

describe("runner + real Codex CLI, profile ask", { timeout: 240_000 }, () => {
  test("[RN9] [ASK4] the plan runs unasked; each command asks the room: Allow → it ran; Deny with a note → blocked, the model reads the note", async () => {
    world = await runnerWorld({
      runner: { askSeconds: 30 },
      script: script({
        "Make the file": [() => plan([["Make the file", "in_progress"]]), () => shell("echo made > made.txt")],
        "Try to write": [() => shell("echo nope > nope.txt")],
      }),
    });
    const w = world;
    const runId = await w.startRun({ prompt: "Make the file", profile: "ask" });
    const ask = await waitingAsk(w, runId);
    expect(ask.request).toMatchObject({
      kind: "permission",
      tool: "Bash",
      summary: "echo made > made.txt",
      command: "echo made > made.txt",
      scope: "Bash",
      expires_in_seconds: 30,
      source: "codex",
    });
    const worktree = await worktreeOf(w, runId);
    expect(fs.existsSync(path.join(worktree, "made.txt"))).toBe(false);
    await answerAs(w, runId, ask.ask_id, { decision: "allow" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");
    expect(fs.readFileSync(path.join(worktree, "made.txt"), "utf8")).toBe("made\n");
    expect(run.plan.map((s: any) => s.title)).toEqual(["Make the file"]); // update_plan: never asked
    expect(await askTrail(w, runId)).toEqual(["run.asked", "run.answered", "run.answer_applied:applied"]);

    const denied = await w.startRun({ prompt: "Try to write", profile: "ask" });
    const no = await waitingAsk(w, denied);
    await answerAs(w, denied, no.ask_id, { decision: "deny", note: "use the fixture instead" });
    const after = await w.waitRun(denied, (r) => r.state === "finished", "the denied run finishes");
    expect(after.outcome, after.summary).toBe("succeeded");
    expect(fs.existsSync(path.join(await worktreeOf(w, denied), "nope.txt"))).toBe(false);
    expect(outputsOf(w, "Try to write")).toEqual([
      expect.stringContaining(
        "Command blocked by PreToolUse hook: A person in the Chips room denied this tool call: use the fixture instead",
      ),
    ]);
    expect(await askTrail(w, denied)).toEqual(["run.asked", "run.answered", "run.answer_applied:applied"]);
  });

  test("[RN9] Codex's question (request_user_input, which codex exec cannot run) is asked in the room: the model reads the person's answer as the reason the hook refused the call", async () => {
    world = await runnerWorld({
      runner: { askSeconds: 30 },
      script: script({
        "Pick a database": [
          () =>
            askUser([
              {
                id: "db",
                header: "Database",
                question: "Which database?",
                options: [
                  { label: "SQLite", description: "one file" },
                  { label: "PostgreSQL", description: "a server" },
                ],
              },
            ]),
        ],
      }),
    });
    const w = world;
    const runId = await w.startRun({ prompt: "Pick a database", profile: "ask" });
    const ask = await waitingAsk(w, runId);
    expect(ask.request).toMatchObject({
      kind: "question",
      question: "Which database?",
      options: [
        { id: "o1", label: "SQLite", description: "one file" },
        { id: "o2", label: "PostgreSQL", description: "a server" },
      ],
      free_text: true,
      source: "codex",
    });
    await answerAs(w, runId, ask.ask_id, { option_id: "o1", text: "keep it small" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");
    expect(outputsOf(w, "Pick a database")).toEqual([
      expect.stringContaining("A person in the Chips room answered: Which database? → SQLite: keep it small"),
    ]);
    expect(await askTrail(w, runId)).toEqual(["run.asked", "run.answered", "run.answer_applied:applied"]);
  });

  test("[RN9] [RN7] nobody answers: blocked at the deadline (the hook fails closed), the ask closed expired (deny); Allow for this run lets later commands run unasked inside the same sandbox", async () => {
    world = await runnerWorld({
      runner: { askSeconds: 3 },
      script: script({
        "Wait for nobody": [() => shell("echo late > late.txt")],
        "Widen once": [
          () => shell("echo one > one.txt"),
          () => shell("echo two > two.txt"),
          () => shell("touch ../outside-the-worktree.txt"),
        ],
      }),
    });
    const w = world;
    const runId = await w.startRun({ prompt: "Wait for nobody", profile: "ask" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");
    expect(fs.existsSync(path.join(await worktreeOf(w, runId), "late.txt"))).toBe(false);
    expect(outputsOf(w, "Wait for nobody")).toEqual([
      expect.stringContaining("No answer from a person in the Chips room within 3 s: the call was not run."),
    ]);
    expect(await asksOf(w, runId)).toMatchObject([
      { state: "closed", closed_reason: "expired", applied_default: "deny" },
    ]);

    const wide = await w.startRun({ prompt: "Widen once", profile: "ask" });
    const ask = await waitingAsk(w, wide);
    await answerAs(w, wide, ask.ask_id, { decision: "allow_for_run" });
    const done = await w.waitRun(wide, (r) => r.state === "finished", "the widened run finishes");
    expect(done.outcome, done.summary).toBe("succeeded");
    const worktree = await worktreeOf(w, wide);
    expect(fs.readFileSync(path.join(worktree, "two.txt"), "utf8")).toBe("two\n");
    expect(fs.existsSync(path.join(worktree, "..", "outside-the-worktree.txt")), "the sandbox did not widen").toBe(
      false,
    );
    expect((await asksOf(w, wide)).map((a) => [a.state, a.answer?.scope])).toEqual([["applied", "Bash"]]);
  });
});
