import type { PlanLine, PlanMark } from "@/lib/core/review/run-story";
import { Table, Td } from "../ui/table";
import { muted } from "./format";

const MARK: Record<PlanMark, { text: string; tone: string }> = {
  "as-planned": { text: "as planned", tone: "text-zinc-600 dark:text-zinc-400" },
  skipped: { text: "skipped", tone: "text-zinc-800 line-through dark:text-zinc-300" },
  added: { text: "added late", tone: "text-violet-800 dark:text-violet-300" },
  "out-of-order": { text: "out of order", tone: "text-amber-800 dark:text-amber-300" },
  unfinished: { text: "left unfinished", tone: "text-amber-800 dark:text-amber-300" },
  failed: { text: "failed", tone: "text-red-800 dark:text-red-300" },
};

/** The plan the run started with against what it did: each step marked skipped, added late, out of order, unfinished or failed. */
export function PlanVsActual({ lines }: { lines: PlanLine[] }) {
  if (!lines.length) return <p className={`text-sm ${muted}`}>No plan to compare.</p>;
  return (
    <Table caption="Plan against what happened" columns={["Planned", "Begun", "Step", "What happened"]}>
      {lines.map((l) => (
        <tr key={l.step_id} data-testid="plan-line" data-step-id={l.step_id} data-marks={l.marks.join(" ")}>
          <Td className="tabular-nums">{l.planned_at === null ? "—" : l.planned_at + 1}</Td>
          <Td className="tabular-nums">{l.begun_at === null ? "—" : l.begun_at + 1}</Td>
          <Td>{l.title}</Td>
          <Td>
            {l.marks.map((m) => (
              <span key={m} className={`mr-2 font-medium ${MARK[m].tone}`}>
                {MARK[m].text}
              </span>
            ))}
          </Td>
        </tr>
      ))}
    </Table>
  );
}
