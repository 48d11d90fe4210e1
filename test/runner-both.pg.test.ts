import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, test } from "vitest";
import { readEvents } from "./support/api";
import { until } from "./support/feed";
import { claudeWorld, type ClaudeWorld } from "./support/claude-world";
import { brief } from "./support/runner-world";
import { bash, say as claudeSay, todo, toolResultsSinceUser } from "./support/messages-server";
import { plan, say as codexSay, shell, toolOutputs } from "./support/model-server";

/**
 * One runner with both adapters, one room, a Codex run and a Claude run at once: the REAL
 * `codex` and the REAL `claude` (in the runner's sandbox), each against its scripted model.
 */
let world: ClaudeWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** Resolves once both models have been asked for the first time: the runs overlap for sure. */
function barrier() {
  const arrived = new Set<string>();
  let open!: () => void;
  const both = new Promise<void>((r) => (open = r));
  return (who: string) => {
    arrived.add(who);
    if (arrived.size === 2) open();
    return both;
  };
}

describe("two agents in one room", { timeout: 180_000 }, () => {
  test("[RN2] a Codex run and a Claude run started at once both complete; each run's events are its own, numbered 1..n, and each diff is its own", async () => {
    const meet = barrier();
    world = await claudeWorld({
      runner: { capacity: 2 },
      codex: ({ input }) => {
        switch (toolOutputs(input)) {
          case 0:
            return { items: [plan([["Codex writes", "in_progress"]])], hold: meet("codex") };
          case 1:
            return { items: [shell("printf 'from codex\\n' > codex.txt")] };
          case 2:
            return { items: [plan([["Codex writes", "completed"]])] };
          default:
            return { items: [codexSay("Codex is done.")] };
        }
      },
      messages: ({ messages }) => {
        switch (toolResultsSinceUser(messages).length) {
          case 0:
            return { blocks: [todo([["Claude writes", "in_progress"]])], hold: meet("claude") };
          case 1:
            return { blocks: [bash("printf 'from claude\\n' > claude.txt")] };
          case 2:
            return { blocks: [todo([["Claude writes", "completed"]])] };
          default:
            return { blocks: [claudeSay("Claude is done.")] };
        }
      },
    });
    const w = world;
    const [codexRun, claudeRun] = await Promise.all([
      w.startRun({ agent: "codex", prompt: "Write codex.txt" }),
      w.startRun({ agent: "claude", prompt: "Write claude.txt" }),
    ]);
    // Both at once: a run that ends without success (its CLI failing before it asks its model
    // leaves the other held at the barrier) ends the wait, and the failure names both runs.
    let [codex, claude]: any[] = [];
    const both = () => `Codex: ${brief(codex)}; Claude: ${brief(claude)}`;
    const failed = (r: any) => r?.state === "finished" && r.outcome !== "succeeded";
    await until(
      async () => {
        [codex, claude] = await Promise.all([w.run(codexRun), w.run(claudeRun)]);
        return (codex?.state === "finished" && claude?.state === "finished") || failed(codex) || failed(claude);
      },
      () => `both runs finish (${both()})`,
      120_000,
    );
    expect([codex.outcome, claude.outcome], both()).toEqual(["succeeded", "succeeded"]);
    expect(codex.plan.map((s: any) => [s.title, s.state])).toEqual([["Codex writes", "done"]]);
    expect(claude.plan.map((s: any) => [s.title, s.state])).toEqual([["Claude writes", "done"]]);

    const all = await readEvents(w.server, w.ws);
    for (const [runId, agent, own, theirs] of [
      [codexRun, "codex", "Codex", "Claude"],
      [claudeRun, "claude", "Claude", "Codex"],
    ] as const) {
      // Everything the runner said for this run carries this run's id, and none of the other agent's words.
      const panel = all.filter((e) => e.run_id === runId);
      const texts = JSON.stringify(panel.filter((e) => e.type !== "run.queued" && e.type !== "message.posted"));
      expect(texts).not.toContain(theirs);
      expect(panel.filter((e) => e.type === "message.posted" && e.actor.kind === "harness").map((e) => e.text)).toEqual(
        [`${own} is done.`],
      );
      const rev = panel.filter((e) => e.type === "runner.event");
      expect(rev.map((e) => e.sequence)).toEqual(rev.map((_, i) => i + 1));
      expect(rev[0].payload.agent).toBe(agent);
      expect(panel[panel.length - 1].type).toBe("run.finished");
    }
    // The two runs really overlapped: each started before the other finished.
    const seqOf = (runId: string, type: string) => all.find((e) => e.run_id === runId && e.type === type).seq;
    expect(seqOf(codexRun, "run.started")).toBeLessThan(seqOf(claudeRun, "run.finished"));
    expect(seqOf(claudeRun, "run.started")).toBeLessThan(seqOf(codexRun, "run.finished"));

    // Each diff is its own: its own worktree, its own file, equal to git diff --binary there.
    const cs = [codex.change_set, claude.change_set];
    expect(cs.map((c) => c.files.map((f: any) => f.path))).toEqual([["codex.txt"], ["claude.txt"]]);
    expect(cs[0].cleanup.worktree).not.toBe(cs[1].cleanup.worktree);
    for (const [runId, c] of [
      [codexRun, cs[0]],
      [claudeRun, cs[1]],
    ] as const) {
      const expected = execFileSync("git", ["diff", "--binary", `${c.base_sha}..${c.head_sha}`], {
        cwd: c.cleanup.worktree,
      });
      expect((await w.object(runId, c.diff.sha256)).equals(expected)).toBe(true);
    }
    expect((await w.object(codexRun, cs[0].diff.sha256)).toString()).toContain("+from codex");
    expect((await w.object(claudeRun, cs[1].diff.sha256)).toString()).toContain("+from claude");
  });
});
