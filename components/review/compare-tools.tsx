import type { Run } from "@/lib/core/protocol";
import { alignTools } from "@/lib/core/review/compare";
import { RunColumns, td } from "./compare-head";
import { callTally, muted } from "./format";

/** The runs' tool calls side by side ([TOOL6]): a row per tool, each run's calls of it. */
export function CompareTools({ runs }: { runs: Run[] }) {
  const rows = alignTools(runs);
  if (!rows.length) return <p className={`mt-2 text-sm ${muted}`}>None of these runs has tool calls on record.</p>;
  return (
    <div className="overflow-x-auto">
      <table className="mt-2 w-full text-sm" data-testid="compare-tools">
        <caption className="sr-only">Tool calls, by tool</caption>
        <RunColumns first="Tool" runs={runs} />
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.tool}
              data-testid="compare-tool"
              data-tool={row.tool}
              className="border-t border-zinc-100 dark:border-zinc-900"
            >
              <th scope="row" className={`${td} text-left font-mono text-xs font-normal`}>
                {row.tool}
              </th>
              {row.cells.map((c, i) => (
                <td
                  key={runs[i].id}
                  className={`${td} tabular-nums ${c?.failed ? "text-red-700 dark:text-red-400" : ""}`}
                  data-count={c?.count ?? 0}
                  data-failed={c?.failed ?? 0}
                >
                  {c ? callTally(c) : <span className={muted}>none</span>}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
