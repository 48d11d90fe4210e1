import type { Run } from "@/lib/core/protocol";
import type { AskTally } from "@/lib/core/review/asks";
import { Table, Td, Th } from "../ui/table";
import { callTime, muted } from "./format";

/** The rows: what each run's asks came to ([ASKR3]). */
const ROWS: [string, string, (t: AskTally) => string][] = [
  ["Asks", "count", (t) => String(t.count)],
  ["Answered", "answered", (t) => String(t.answered)],
  ["Denied", "denied", (t) => String(t.denied)],
  ["Expired", "expired", (t) => String(t.expired)],
  ["Median time to answer", "p50", (t) => (t.p50_ms === null ? "—" : callTime(t.p50_ms))],
];

/** The runs' asks side by side ([ASKR3]): how many, answered, denied, expired, and the median time to answer. */
export function CompareAsks({ runs, asks }: { runs: Run[]; asks: Record<string, AskTally> }) {
  if (!runs.some((r) => asks[r.id]?.count))
    return <p className={`mt-2 text-sm ${muted}`}>None of these runs asked anyone anything.</p>;
  return (
    <div className="mt-2 overflow-x-auto">
      <Table caption="Asks, by run" data-testid="compare-asks" columns={["", ...runs.map((_, i) => `Run ${i + 1}`)]}>
        {ROWS.map(([label, key, cell]) => (
          <tr key={key} data-testid="compare-ask-row" data-row={key}>
            <Th>{label}</Th>
            {runs.map((r) => (
              <Td key={r.id} className="tabular-nums" data-run-id={r.id}>
                {cell(asks[r.id])}
              </Td>
            ))}
          </tr>
        ))}
      </Table>
    </div>
  );
}
