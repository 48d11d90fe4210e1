import { describe, expect, it } from "vitest";
import type { Run, Step } from "../lib/core/protocol";
import { alignSteps, alignTools, compareChangeSets } from "../lib/core/review/compare";

const step = (
  step_id: string,
  title: string,
  state: Step["state"] = "done",
  started = "2026-01-01T00:00:00.000Z",
  finished = "2026-01-01T00:00:05.000Z",
): Step => ({ step_id, title, state, started_at: started, finished_at: finished });
const run = (plan: Step[], change_set: Run["change_set"] = null) =>
  ({ plan, change_set }) as Pick<Run, "plan" | "change_set"> as Run;
const cs = (files: [string, string, number, number][]) => ({
  base_sha: "a",
  head_sha: "b",
  branch: "x",
  additions: 0,
  deletions: 0,
  checks: [],
  diff: { key: "k", sha256: "0".repeat(64), bytes: 1 },
  cleanup: { policy: "keep", worktree: "w" },
  files: files.map(([path, status, additions, deletions]) => ({ path, status, additions, deletions, binary: false })),
});

describe("[CMP1] compare", () => {
  it("aligns steps by step_id, else by title; a step one run lacks is an empty cell", () => {
    const rows = alignSteps([
      run([step("read", "Read"), step("fix", "Fix")]),
      run([step("read", "Read it"), step("repair", "Fix"), step("mail", "Mail", "skipped")]),
    ]);
    expect(rows.map((r) => [r.key, r.cells.map((c) => c?.state ?? null)])).toEqual([
      ["read", ["done", "done"]],
      ["fix", ["done", "done"]],
      ["mail", [null, "skipped"]],
    ]);
    expect(rows[0].cells[0]?.duration_ms).toBe(5000);
  });

  it("compares change-sets file by file: same, differs, untouched", () => {
    const files = compareChangeSets([
      run(
        [],
        cs([
          ["a.ts", "modified", 1, 2],
          ["b.ts", "added", 3, 0],
        ]),
      ),
      run(
        [],
        cs([
          ["a.ts", "modified", 1, 2],
          ["b.ts", "added", 4, 0],
          ["c.ts", "deleted", 0, 9],
        ]),
      ),
    ]);
    expect(files.map((f) => [f.path, f.same, f.cells.map((c) => (c ? c.status : null))])).toEqual([
      ["a.ts", true, ["modified", "modified"]],
      ["b.ts", false, ["added", "added"]],
      ["c.ts", false, [null, "deleted"]],
    ]);
  });

  it("[TOOL6] aligns the runs' tool calls by tool, and each step's calls with its step", () => {
    const tools = (by: [string, number, number, number][]) =>
      ({
        count: 0,
        failed: 0,
        running: 0,
        ms: 0,
        last: [],
        open: [],
        by_tool: by.map(([tool, count, failed, ms]) => ({ tool, count, failed, ms })),
      }) as Run["tools"];
    const a = {
      ...run([{ ...step("t", "Test"), tools: { count: 2, failed: 1, ms: 900 } }]),
      tools: tools([["Bash", 2, 1, 900]]),
    };
    const b = {
      ...run([step("t", "Test")]),
      tools: tools([
        ["exec_command", 3, 0, 120],
        ["Bash", 1, 0, 10],
      ]),
    };
    expect(alignTools([a, b, run([])])).toEqual([
      { tool: "Bash", cells: [{ count: 2, failed: 1, ms: 900 }, { count: 1, failed: 0, ms: 10 }, null] },
      { tool: "exec_command", cells: [null, { count: 3, failed: 0, ms: 120 }, null] },
    ]);
    expect(alignSteps([a, b])[0].cells.map((c) => c?.tools ?? null)).toEqual([{ count: 2, failed: 1, ms: 900 }, null]);
  });
});
