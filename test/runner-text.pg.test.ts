import { afterEach, describe, expect, test } from "vitest";
import { LIMITS } from "../lib/core/protocol";
import { readEvents } from "./support/api";
import { lastUserText, plan, say, toolOutputs } from "./support/model-server";
import { runnerWorld, type World } from "./support/runner-world";

/**
 * [LIM1] Long non-ASCII text through the real runner and the REAL Codex CLI (only the model is
 * scripted): a prompt longer than a goal may be, and a todo far longer than a title may be.
 */
let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("runner + real Codex CLI: text over its limits", { timeout: 180_000 }, () => {
  test("[LIM1] a prompt of 3,000 Japanese characters: the runner's run.started is accepted with the goal cut to 4,000 bytes, the agent gets the whole prompt, and a 600-character todo is a dot within 500 bytes", async () => {
    const prompt = "日".repeat(3000); // 9,000 bytes
    const todo = "日".repeat(600); // 1,800 bytes
    // The agent plans, then marks both todos done, then answers: one model turn per tool result.
    const turns = [
      plan([
        [todo, "in_progress"],
        ["Tidy up", "pending"],
      ]),
      plan([
        [todo, "completed"],
        ["Tidy up", "completed"],
      ]),
    ];
    world = await runnerWorld({ script: ({ input }) => ({ items: [turns[toolOutputs(input)] ?? say("Done.")] }) });
    const w = world;
    const runId = await w.startRun({ prompt });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    expect(run.outcome, run.summary).toBe("succeeded");

    const events = (await readEvents(w.server, w.ws)).filter((e) => e.run_id === runId);
    const started = events.find((e) => e.type === "run.started");
    expect(started?.actor).toEqual({ kind: "harness", id: w.runnerId });
    expect(bytes(started.goal)).toBeLessThanOrEqual(LIMITS.goal);
    expect(started.goal.endsWith("…")).toBe(true);
    expect(prompt.startsWith(started.goal.slice(0, -1))).toBe(true);
    // The agent was given the whole prompt, not the goal.
    expect(lastUserText(w.model.requests[0].input)).toContain(prompt);

    // Both dots, the long one cut on a code point within the title's limit, and every step event stored.
    const title = run.plan[0].title as string;
    expect(bytes(title)).toBeLessThanOrEqual(LIMITS.title);
    expect(title.endsWith("…") && todo.startsWith(title.slice(0, -1))).toBe(true);
    expect(run.plan.map((s: any) => [s.step_id, s.state])).toEqual([
      ["todo-0", "done"],
      ["todo-1", "done"],
    ]);
    expect(events.filter((e) => e.type === "run.step").map((e) => `${e.step_id}:${e.state}`)).toEqual([
      "todo-0:active",
      "todo-1:pending",
      "todo-0:done",
      "todo-1:done",
    ]);
  });
});
