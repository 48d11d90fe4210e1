import Link from "next/link";
import { comparePage } from "@/lib/server/pages/review";
import { alignSteps, compareChangeSets, sideOf } from "@/lib/core/review/compare";
import { runHarnessName } from "@/lib/core/views/names";
import { ReviewNav } from "@/components/review/review-nav";
import { CompareTools } from "@/components/review/compare-tools";
import { RunColumns, td, th } from "@/components/review/compare-head";
import { callTally, link, muted, took, tokens, usd } from "@/components/review/format";

export const dynamic = "force-dynamic";

/** Runs side by side ([CMP1]): steps aligned by step_id (else title) with their calls, outcome, usage, checks, diff stats, tool calls by tool ([TOOL6]), and the change-sets file by file. */
export default async function ComparePage({
  params,
  searchParams,
}: {
  params: Promise<{ ws: string }>;
  searchParams: Promise<{ run?: string | string[] }>;
}) {
  const { ws } = await params;
  const asked = (await searchParams).run;
  const d = await comparePage(
    ws,
    (Array.isArray(asked) ? asked : asked ? asked.split(",") : []).map((x) => x.trim()).filter(Boolean),
  );
  const { runs, names } = d;
  const sides = runs.map(sideOf);
  return (
    <main className="mx-auto max-w-6xl px-6 py-8">
      <ReviewNav ws={ws} here="compare" />
      <h1 className="mt-3 text-xl font-semibold">Compare runs</h1>
      {d.missing.length > 0 && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-400">
          Not runs of this workspace: {d.missing.join(", ")}
        </p>
      )}
      {runs.length < 2 ? (
        <p className={`mt-4 text-sm ${muted}`}>
          Pick two or more runs on the runs page (the boxes in the first column) and press “Compare”.
        </p>
      ) : (
        <>
          <div className="mt-4 overflow-x-auto">
            <table className="w-full text-sm" data-testid="compare-summary">
              <caption className="sr-only">The runs</caption>
              <thead>
                <tr>
                  <th scope="col" className={th}>
                    Run
                  </th>
                  {runs.map((r) => (
                    <th key={r.id} scope="col" className={th}>
                      <Link className={link} href={`/w/${ws}/runs/${r.id}`}>
                        {r.goal}
                      </Link>
                      <span className={`block font-normal normal-case ${muted}`}>{runHarnessName(names, r)}</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {(
                  [
                    ["Outcome", (i: number) => sides[i].outcome],
                    ["Duration", (i: number) => took(sides[i].duration_ms)],
                    ["Tokens · cost", (i: number) => `${tokens(sides[i].tokens)} · ${usd(sides[i].cost_usd)}`],
                    [
                      "Checks",
                      (i: number) =>
                        sides[i].checks ? `${sides[i].checks!.passed} passed, ${sides[i].checks!.failed} failed` : "—",
                    ],
                    [
                      "Diff",
                      (i: number) =>
                        sides[i].files === null
                          ? "no change-set"
                          : `${sides[i].files} files +${sides[i].additions} −${sides[i].deletions}`,
                    ],
                  ] as const
                ).map(([label, cell]) => (
                  <tr key={label} className="border-t border-zinc-100 dark:border-zinc-900">
                    <th scope="row" className={th}>
                      {label}
                    </th>
                    {runs.map((r, i) => (
                      <td key={r.id} className={`${td} tabular-nums`}>
                        {cell(i)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2 className="mt-8 text-sm font-semibold uppercase tracking-wide text-zinc-700 dark:text-zinc-300">Steps</h2>
          <div className="overflow-x-auto">
            <table className="mt-2 w-full text-sm" data-testid="compare-steps">
              <caption className="sr-only">Plan steps, aligned</caption>
              <RunColumns first="Step" runs={runs} />
              <tbody>
                {alignSteps(runs).map((row) => (
                  <tr
                    key={row.key}
                    data-testid="compare-step"
                    data-step={row.key}
                    className="border-t border-zinc-100 dark:border-zinc-900"
                  >
                    <th scope="row" className={`${td} text-left font-normal`}>
                      {row.title}
                    </th>
                    {row.cells.map((c, i) => (
                      <td
                        key={runs[i].id}
                        className={`${td} tabular-nums`}
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
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2 className="mt-8 text-sm font-semibold uppercase tracking-wide text-zinc-700 dark:text-zinc-300">
            Tool calls
          </h2>
          <CompareTools runs={runs} />
          <h2 className="mt-8 text-sm font-semibold uppercase tracking-wide text-zinc-700 dark:text-zinc-300">
            Change-sets, file by file
          </h2>
          <div className="overflow-x-auto">
            <table className="mt-2 w-full text-sm" data-testid="compare-files">
              <caption className="sr-only">Files changed, by run</caption>
              <RunColumns first="File" runs={runs} after={["Alike"]} />
              <tbody>
                {compareChangeSets(runs).map((f) => (
                  <tr
                    key={f.path}
                    data-testid="compare-file"
                    data-path={f.path}
                    data-same={String(f.same)}
                    className="border-t border-zinc-100 font-mono text-xs dark:border-zinc-900"
                  >
                    <th scope="row" className={`${td} break-all text-left font-normal`}>
                      {f.path}
                    </th>
                    {f.cells.map((c, i) => (
                      <td key={runs[i].id} className={td}>
                        {c ? (
                          `${c.status} +${c.additions ?? "bin"} −${c.deletions ?? "bin"}`
                        ) : (
                          <span className={muted}>untouched</span>
                        )}
                      </td>
                    ))}
                    <td className={td}>{f.same ? "same" : "differs"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </main>
  );
}
