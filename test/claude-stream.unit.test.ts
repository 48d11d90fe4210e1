import { describe, expect, it } from "vitest";
import { ClaudeStream } from "../lib/agents/runner/adapters/claude-stream";

/**
 * [TOOL1] [RN6] A runner's Claude Code calls as the runner reads them from `stream-json`: a call
 * refused before it ran is `denied` — whoever refused it (a person, the runner at the ask's
 * deadline, a profile) — and the runner's log says it was not run, never "exit 1" for a command
 * that never started nor "changed" for a file never written. A command that ran and failed
 * stays `failed` with its exit code.
 */
const line = (o: object) => JSON.stringify(o);
const use = (id: string, name: string, input: object) =>
  line({ type: "assistant", message: { content: [{ type: "tool_use", id, name, input }] } });
const result = (id: string, content: string, is_error: boolean) =>
  line({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: id, content, is_error }] } });

function ending(name: string, input: object, content: string, isError = true) {
  const s = new ClaudeStream();
  s.parse(use("toolu_1", name, input), true);
  const events = s.parse(result("toolu_1", content, isError), true);
  const finished = events.find((e) => e.type === "call_finished") as { outcome: string } | undefined;
  return { outcome: finished?.outcome, rest: events.filter((e) => e.type !== "call_finished") };
}

describe("[TOOL1] [RN6] a call refused before it ran", () => {
  it.each([
    ["a person's Deny", "A person in the Chips room denied this tool call: not today"],
    ["no answer by the deadline", "No answer from a person in the Chips room within 10 s: the call was not run."],
    ["Chips unreachable", "Chips could not be reached to ask a person (fetch failed): not run."],
    ["the run's end", "The run finished before a person answered: not run."],
  ])("%s: denied, and the log says not run", (_, why) => {
    const { outcome, rest } = ending("Bash", { command: "echo no > no.txt" }, why);
    expect(outcome).toBe("denied");
    expect(rest).toEqual([{ type: "notice", message: `Bash echo no > no.txt not run: ${why}` }]);
  });

  it("a tool outside the profile: denied; an edit refused logs no change", () => {
    const why =
      "Write is not allowed in this run's permission profile (read-only): a person may allow nothing, and nothing else runs.";
    const { outcome, rest } = ending("Write", { file_path: "/w/a.txt", content: "x" }, why);
    expect(outcome).toBe("denied");
    expect(rest).toEqual([{ type: "notice", message: `Write /w/a.txt not run: ${why}` }]);
  });

  it("a command that ran and failed stays failed with its exit code, whatever its output says", () => {
    const { outcome, rest } = ending("Bash", { command: "make" }, "Exit code 2\nstep was not run.");
    expect(outcome).toBe("failed");
    expect(rest).toEqual([
      expect.objectContaining({ type: "command", phase: "completed", command: "make", exitCode: 2 }),
    ]);
  });
});
