import Link from "next/link";
import { alignSteps, compareChangeSets, sideOf } from "@/lib/core/review/compare";
import { runHarnessName } from "@/lib/core/views/names";
import type { CompareData } from "@/lib/core/views/review-pages";
import { Table, Td, Th } from "../ui/table";
import { CompareTools } from "./compare-tools";
import { CompareAsks } from "./compare-asks";
import { callTally, link, muted, took, tokens, usd } from "./format";

const heading = "mt-8 text-sm font-semibold uppercase tracking-wide text-zinc-700 dark:text-zinc-300";

/** Runs side by side ([CMP1]): steps aligned by step_id (else title) with their calls, outcome, usage, checks, diff stats, tool calls by tool ([TOOL6]), asks ([ASKR3]), and the change-sets file by file. */
export function CompareView({ ws, d }: { ws: string; d: CompareData }) {
  const { runs, names } = d;
  if (runs.length < 2)
    return (
      <p className={`mt-4 text-sm ${muted}`}>
        Pick two or more runs on the runs page (the boxes in the first column) and press “Compare”.
      </p>
    );
  const sides = runs.map(sideOf);
  const numbered = runs.map((_, i) => `Run ${i + 1}`);
  const summary: [string, (i: number) => string][] = [
    ["Outcome", (i) => sides[i].outcome],
    ["Duration", (i) => took(sides[i].duration_ms)],
    ["Tokens · cost", (i) => `${tokens(sides[i].tokens)} · ${usd(sides[i].cost_usd)}`],
    ["Checks", (i) => (sides[i].checks ? `${sides[i].checks!.passed} passed, ${sides[i].checks!.failed} failed` : "—")],
    [
      "Diff",
      (i) =>
        sides[i].files === null
          ? "no change-set"
          : `${sides[i].files} files +${sides[i].additions} −${sides[i].deletions}`,
    ],
  ];
  return (
    <>
      <div className="mt-4 overflow-x-auto">
        <Table
          caption="The runs"
          data-testid="compare-summary"
          columns={[
            "Run",
            ...runs.map((r) => (
              <span key={r.id}>
                <Link className={link} href={`/w/${ws}/runs/${r.id}`}>
                  {r.goal}
                </Link>
                <span className={`block font-normal normal-case ${muted}`}>{runHarnessName(names, r)}</span>
              </span>
            )),
          ]}
        >
          {summary.map(([label, cell]) => (
            <tr key={label}>
              <Th>{label}</Th>
              {runs.map((r, i) => (
                <Td key={r.id} className="tabular-nums">
                  {cell(i)}
                </Td>
              ))}
            </tr>
          ))}
        </Table>
      </div>
      <h2 className={heading}>Steps</h2>
      <div className="mt-2 overflow-x-auto">
        <Table caption="Plan steps, aligned" data-testid="compare-steps" columns={["Step", ...numbered]}>
          {alignSteps(runs).map((row) => (
            <tr key={row.key} data-testid="compare-step" data-step={row.key}>
              <Th plain>{row.title}</Th>
              {row.cells.map((c, i) => (
                <Td
                  key={runs[i].id}
                  className="tabular-nums"
                  data-state={c?.state ?? "absent"}
                  data-duration-ms={c?.duration_ms ?? ""}
                  data-calls={c?.tools?.count ?? 0}
                >
                  {c ? (
                    <>
                      {c.state} · {took(c.duration_ms)}
                      {c.tools && <span className={`block text-xs ${muted}`}>{callTally(c.tools)}</span>}
                    </>
                  ) : (
                    <span className={muted}>not in this run</span>
                  )}
                </Td>
              ))}
            </tr>
          ))}
        </Table>
      </div>
      <h2 className={heading}>Tool calls</h2>
      <CompareTools runs={runs} />
      <h2 className={heading}>Asks</h2>
      <CompareAsks runs={runs} asks={d.asks} />
      <h2 className={heading}>Change-sets, file by file</h2>
      <div className="mt-2 overflow-x-auto">
        <Table caption="Files changed, by run" data-testid="compare-files" columns={["File", ...numbered, "Alike"]}>
          {compareChangeSets(runs).map((f) => (
            <tr
              key={f.path}
              data-testid="compare-file"
              data-path={f.path}
              data-same={String(f.same)}
              className="font-mono text-xs"
            >
              <Th plain className="break-all">
                {f.path}
              </Th>
              {f.cells.map((c, i) => (
                <Td key={runs[i].id}>
                  {c ? (
                    `${c.status} +${c.additions ?? "bin"} −${c.deletions ?? "bin"}`
                  ) : (
                    <span className={muted}>untouched</span>
                  )}
                </Td>
              ))}
              <Td>{f.same ? "same" : "differs"}</Td>
            </tr>
          ))}
        </Table>
      </div>
    </>
  );
}
