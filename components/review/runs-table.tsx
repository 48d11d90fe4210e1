import Link from "next/link";
import type { RunListItem } from "@/lib/core/protocol";
import type { ReviewNames } from "@/lib/core/views/review-pages";
import { Button } from "../ui/button";
import { Table, Td } from "../ui/table";
import { link, muted, STATUS_TONE, statusText, took, tokens, usd, VERDICT_TEXT, when } from "./format";

const COLUMNS = [
  "State",
  "Goal",
  "Room",
  "Harness · agent",
  "Started by",
  "Started",
  "Duration",
  "Steps",
  "Tokens · cost",
  "Changes",
  "Review",
];

/** One row per run: what it was, who and what ran it, how long, how far, what it cost and changed, its review. */
export function RunsTable({ ws, runs, names }: { ws: string; runs: RunListItem[]; names: ReviewNames }) {
  if (!runs.length) return <p className={`mt-6 text-sm ${muted}`}>No runs match this view.</p>;
  return (
    <form method="get" action={`/w/${ws}/compare`} className="mt-4 overflow-x-auto" aria-label="Compare runs">
      <Table
        caption="Runs"
        className="w-full min-w-[64rem] border-collapse text-sm"
        data-testid="runs-table"
        columns={[
          <span key="c" className="sr-only">
            Compare
          </span>,
          ...COLUMNS,
        ]}
      >
        {runs.map((r) => {
          const status = statusText(r);
          return (
            <tr key={r.id} data-testid="run-row" data-run-id={r.id} data-status={status}>
              <Td>
                <input
                  type="checkbox"
                  name="run"
                  value={r.id}
                  aria-label={`Compare: ${r.goal}`}
                  data-testid="compare-pick"
                />
              </Td>
              <Td>
                <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_TONE[status] ?? ""}`}>
                  {status}
                </span>
              </Td>
              <Td className="max-w-80">
                <Link className={`${link} line-clamp-2 break-words`} href={`/w/${ws}/runs/${r.id}`}>
                  {r.goal}
                </Link>
              </Td>
              <Td>{names.rooms[r.space_id] ?? "—"}</Td>
              <Td>
                {r.harness_id ? (
                  (names.harnesses[r.harness_id] ?? r.harness_id)
                ) : (
                  <span className={muted}>waiting for a runner</span>
                )}
                {r.agent && <span className={muted}> · {r.agent}</span>}
              </Td>
              <Td>
                {r.person_id ? (
                  (names.persons[r.person_id] ?? "someone")
                ) : (
                  <span className={muted}>at the harness</span>
                )}
              </Td>
              <Td className="whitespace-nowrap tabular-nums">{when(r.started_at ?? r.created_at)}</Td>
              <Td className="whitespace-nowrap tabular-nums" data-testid="run-duration">
                {took(r.duration_ms)}
              </Td>
              <Td className="tabular-nums">{r.steps_planned ? `${r.steps_done}/${r.steps_planned}` : "—"}</Td>
              <Td className="whitespace-nowrap tabular-nums">
                {tokens(r.tokens)} · {usd(r.cost_usd)}
              </Td>
              <Td className="whitespace-nowrap tabular-nums">
                {r.files === null ? (
                  <span className={muted}>none</span>
                ) : (
                  <>
                    {r.files} files <span className="text-green-800 dark:text-green-300">+{r.additions}</span>{" "}
                    <span className="text-red-800 dark:text-red-300">−{r.deletions}</span>
                    {!!r.failed_checks && (
                      <span className="ml-1 text-red-800 dark:text-red-300">· {r.failed_checks} failed</span>
                    )}
                  </>
                )}
              </Td>
              <Td>
                {r.verdict ? (
                  VERDICT_TEXT[r.verdict]
                ) : r.annotations ? (
                  `${r.annotations} notes`
                ) : (
                  <span className={muted}>—</span>
                )}
              </Td>
            </tr>
          );
        })}
      </Table>
      <Button type="submit" className="mt-2" data-testid="compare-selected">
        Compare the runs ticked
      </Button>
    </form>
  );
}
