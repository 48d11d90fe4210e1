import type { CallTally, Run } from "@/lib/core/protocol";
import { ChangeSetPayload } from "@/lib/core/protocol/runner-contract";
import { durationMs } from "./facets";

/**
 * Two or more runs side by side ([CMP1]): plan steps aligned by step_id, else by title;
 * per run its outcome, usage, checks and diff stats; and the change-sets compared file by file.
 */

export interface AlignedStep {
  /** The step_id (or title) the runs share. */
  key: string;
  title: string;
  /** Per run, in the order given: its step's state, duration and tool calls ([TOOL6]), or null when it had no such step. */
  cells: ({ state: string; duration_ms: number | null; tools: CallTally | null } | null)[];
}

export function alignSteps(runs: Run[]): AlignedStep[] {
  const rows: AlignedStep[] = [];
  const at = new Map<string, AlignedStep>();
  runs.forEach((run, i) => {
    for (const s of run.plan) {
      // Same step_id, else the same title (harnesses name steps their own way).
      const key = at.has(`id:${s.step_id}`)
        ? `id:${s.step_id}`
        : at.has(`title:${s.title}`)
          ? `title:${s.title}`
          : `id:${s.step_id}`;
      let row = at.get(key);
      if (!row) {
        row = { key: s.step_id, title: s.title, cells: runs.map(() => null) };
        rows.push(row);
        at.set(`id:${s.step_id}`, row);
        at.set(`title:${s.title}`, row);
      }
      if (row.cells[i]) continue;
      row.cells[i] = {
        state: s.state,
        duration_ms: s.started_at && s.finished_at ? Date.parse(s.finished_at) - Date.parse(s.started_at) : null,
        tools: s.tools ?? null,
      };
    }
  });
  return rows;
}

/** One tool across the runs ([TOOL6]): each run's calls of it (count, failed, time), or null where it made none. */
export interface ToolAcross {
  tool: string;
  cells: (CallTally | null)[];
}

/** The runs' tool calls aligned by tool, in the order the runs first used them. */
export function alignTools(runs: Run[]): ToolAcross[] {
  const tools = [...new Set(runs.flatMap((r) => r.tools?.by_tool.map((t) => t.tool) ?? []))];
  return tools.map((tool) => ({
    tool,
    cells: runs.map((r) => {
      const t = r.tools?.by_tool.find((x) => x.tool === tool);
      return t ? { count: t.count, failed: t.failed, ms: t.ms } : null;
    }),
  }));
}

export interface RunSide {
  outcome: string;
  duration_ms: number | null;
  tokens: number | null;
  cost_usd: number | null;
  checks: { passed: number; failed: number } | null;
  files: number | null;
  additions: number | null;
  deletions: number | null;
}

export function sideOf(run: Run): RunSide {
  const cs = run.change_set ? ChangeSetPayload.safeParse(run.change_set).data : undefined;
  return {
    outcome: run.state === "finished" ? (run.outcome ?? "finished") : run.state,
    duration_ms: durationMs(run),
    tokens: run.usage ? run.usage.input_tokens + run.usage.output_tokens : null,
    cost_usd: run.usage?.cost_usd ?? null,
    checks: cs
      ? { passed: cs.checks.filter((c) => c.passed).length, failed: cs.checks.filter((c) => !c.passed).length }
      : null,
    files: cs ? cs.files.length : null,
    additions: cs?.additions ?? null,
    deletions: cs?.deletions ?? null,
  };
}

/** One file across the runs' change-sets: each run's status and +/− for it, or null where it did not touch it. */
export interface FileAcross {
  path: string;
  cells: ({ status: string; additions: number | null; deletions: number | null } | null)[];
  /** Every run changed it, the same way (status and line counts). */
  same: boolean;
}

export function compareChangeSets(runs: Run[]): FileAcross[] {
  const sets = runs.map((r) => (r.change_set ? ChangeSetPayload.safeParse(r.change_set).data : undefined));
  const paths = [...new Set(sets.flatMap((cs) => cs?.files.map((f) => f.path) ?? []))].sort();
  return paths.map((path) => {
    const cells = sets.map((cs) => {
      const f = cs?.files.find((x) => x.path === path);
      return f ? { status: f.status, additions: f.additions, deletions: f.deletions } : null;
    });
    const first = cells[0];
    const same = cells.every(
      (c) =>
        c && first && c.status === first.status && c.additions === first.additions && c.deletions === first.deletions,
    );
    return { path, cells, same };
  });
}
