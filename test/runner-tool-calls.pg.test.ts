import { afterEach, describe, expect, test } from "vitest";
import { readEvents } from "./support/api";
import { claudeWorld } from "./support/claude-world";
import { bash, edit, read, say as claudeSay, toolResultsSinceUser, workdirOf } from "./support/messages-server";
import { patch, say, shell, toolOutputs } from "./support/model-server";
import { runnerWorld, type World } from "./support/runner-world";

/**
 * [TOOL3] Every tool call a runner's agent makes is on the record, from the REAL Codex CLI
 * (0.169) and the REAL Claude Code (2.1.141) against scripted models: tool.started and
 * tool.finished with the command as a masked one-line summary, the exit code, the time, the
 * files written, and an output over the inline limit whole in the object store.
 */
let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const SECRET = "s3cr3t-deploy-value-42";
/** A command whose output is ~200 KB: 200,000 bytes of "y\n" and a last line to recognise. */
const BIG = "yes | head -c 200000; echo; echo the-end";

/** The run's tool events, by call, in order: [start, finish]. */
async function callsOf(w: World, runId: string) {
  const events = (await readEvents(w.server, w.ws)).filter((e) => e.run_id === runId);
  const calls = new Map<string, any[]>();
  for (const e of events)
    if (e.type === "tool.started" || e.type === "tool.finished")
      calls.set(e.call_id, [...(calls.get(e.call_id) ?? []), e]);
  return [...calls.values()];
}

describe("[TOOL3] a runner's agent's tool calls", { timeout: 180_000 }, () => {
  test("[TOOL3] Codex: a failing command, a 200 KB output, a patch — exit codes, times, files, the output in the object store, the secret masked", async () => {
    world = await runnerWorld({
      runner: { secrets: { DEPLOY_TOKEN: SECRET } },
      script: ({ input }) => {
        switch (toolOutputs(input)) {
          case 0:
            return { items: [shell(`echo using ${SECRET}; echo oops >&2; exit 3`)] };
          case 1:
            return { items: [shell(BIG)] };
          case 2:
            return { items: [patch("*** Add File: notes.md\n+# Notes")] };
          default:
            return { items: [say("Done.")] };
        }
      },
    });
    const w = world;
    const runId = await w.startRun({ prompt: "Try things", secrets: ["DEPLOY_TOKEN"] });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    const calls = await callsOf(w, runId);
    expect(calls.map((c) => c.map((e: any) => e.type))).toEqual([
      ["tool.started", "tool.finished"],
      ["tool.started", "tool.finished"],
      ["tool.started", "tool.finished"],
    ]);
    const [failing, big, patched] = calls;
    expect(failing[0]).toMatchObject({
      tool: "exec_command",
      summary: "echo using [masked:DEPLOY_TOKEN]; echo oops >&2; exit 3",
    });
    expect(JSON.stringify(failing)).not.toContain(SECRET);
    expect(failing[1]).toMatchObject({ outcome: "failed", exit_code: 3 });
    expect(failing[1].output).toContain("oops");
    expect(failing[1].duration_ms).toBeGreaterThanOrEqual(0);

    expect(big[1]).toMatchObject({ outcome: "ok", exit_code: 0 });
    expect(big[1].output_bytes).toBeGreaterThan(200_000);
    expect(Buffer.byteLength(big[1].output)).toBeLessThanOrEqual(4000);
    expect(big[1].output).toContain("the-end");
    const whole = await w.object(runId, big[1].output_ref.sha256);
    expect(whole.length).toBe(big[1].output_ref.bytes);
    expect(whole.length).toBe(big[1].output_bytes);
    // The inline text is the whole output's tail, after the clip's mark. Where stderr's lines
    // fall among stdout's is not fixed (`yes` reports its broken pipe on stderr, and Codex
    // merges the two pipes as they are read): "the-end" is in the tail, not always last.
    expect(big[1].output.startsWith("…")).toBe(true);
    expect(whole.toString().endsWith(big[1].output.slice(1))).toBe(true);
    expect(whole.toString()).toMatch(/y\ny\n[\s\S]*the-end\n/);
    expect(whole.toString().split("y\n").length).toBeGreaterThan(99_990);

    expect(patched[0]).toMatchObject({
      tool: "apply_patch",
      summary: expect.stringMatching(/^apply_patch .*notes\.md$/),
    });
    expect(patched[1]).toMatchObject({ outcome: "ok", files: [expect.stringMatching(/notes\.md$/)] });

    // The one fold: the run's tally.
    expect(run.tools).toMatchObject({ count: 3, failed: 1, running: 0 });
    expect(run.tools.by_tool.map((t: any) => [t.tool, t.count, t.failed])).toEqual([
      ["exec_command", 2, 1],
      ["apply_patch", 1, 0],
    ]);
  });

  test("[TOOL3] Claude Code: a command, a failing command, a read and an edit — exit codes, times by the runner's clock, files", async () => {
    world = await claudeWorld({
      messages: ({ messages, body }) => {
        const wd = workdirOf(body);
        switch (toolResultsSinceUser(messages).length) {
          case 0:
            return { blocks: [bash("sleep 0.3; echo hello")] };
          case 1:
            return { blocks: [bash("echo bad >&2; exit 7")] };
          case 2:
            return { blocks: [read(`${wd}/edit-me.txt`)] };
          case 3:
            return { blocks: [edit(`${wd}/edit-me.txt`, "two", "TWO")] };
          default:
            return { blocks: [claudeSay("Done.")] };
        }
      },
    });
    const w = world;
    const runId = await w.startRun({ prompt: "Try things", agent: "claude" });
    const run = await w.waitRun(runId, (r) => r.state === "finished", "the run finishes");
    const calls = await callsOf(w, runId);
    expect(calls.map((c) => [c[0].tool, c[0].summary, c[1]?.outcome, c[1]?.exit_code])).toEqual([
      ["Bash", "sleep 0.3; echo hello", "ok", 0],
      ["Bash", "echo bad >&2; exit 7", "failed", 7],
      ["Read", expect.stringMatching(/^Read .*edit-me\.txt$/), "ok", undefined],
      ["Edit", expect.stringMatching(/^Edit .*edit-me\.txt$/), "ok", undefined],
    ]);
    expect(calls[0][1].output).toContain("hello");
    expect(calls[0][1].duration_ms).toBeGreaterThanOrEqual(300);
    expect(calls[1][1].output).toMatch(/bad/);
    expect(calls[2][1].files).toBeUndefined(); // Read names a file and writes none
    expect(calls[3][0].paths).toEqual([expect.stringMatching(/edit-me\.txt$/)]);
    expect(calls[3][1].files).toEqual([expect.stringMatching(/edit-me\.txt$/)]);
    expect(run.tools).toMatchObject({ count: 4, failed: 1, running: 0 });
  });
});
