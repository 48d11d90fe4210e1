import type { Run } from "@/lib/core/protocol";
import { alignTools } from "@/lib/core/review/compare";
import { Table, Td, Th } from "../ui/table";
import { callTally, muted } from "./format";

/** The runs' tool calls side by side ([TOOL6]): a row per tool, each run's calls of it. */
export function CompareTools({ runs }: { runs: Run[] }) {
  const rows = alignTools(runs);
  if (!rows.length) return <p className={`mt-2 text-sm ${muted}`}>None of these runs has tool calls on record.</p>;
  return (
    <div className="mt-2 overflow-x-auto">
      <Table
        caption="Tool calls, by tool"
        data-testid="compare-tools"
        columns={["Tool", ...runs.map((_, i) => `Run ${i + 1}`)]}
      >
        {rows.map((row) => (
          <tr key={row.tool} data-testid="compare-tool" data-tool={row.tool}>
            <Th plain className="font-mono text-xs">
              {row.tool}
            </Th>
            {row.cells.map((c, i) => (
              <Td
                key={runs[i].id}
                className={`tabular-nums ${c?.failed ? "text-red-700 dark:text-red-400" : ""}`}
                data-count={c?.count ?? 0}
                data-failed={c?.failed ?? 0}
              >
                {c ? callTally(c) : <span className={muted}>none</span>}
              </Td>
            ))}
          </tr>
        ))}
      </Table>
    </div>
  );
}
