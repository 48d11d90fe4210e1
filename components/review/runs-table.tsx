import Link from "next/link";
import type { RunListItem } from "@/lib/core/protocol";
import type { ReviewNames } from "@/lib/core/views/review-pages";
import { button, link, muted, STATUS_TONE, statusText, took, tokens, usd, VERDICT_TEXT, when } from "./format";

/** One row per run: what it was, who and what ran it, how long, how far, what it cost and changed, its review. */
export function RunsTable({ ws, runs, names }: { ws: string; runs: RunListItem[]; names: ReviewNames }) {
  if (!runs.length) return <p className={`mt-6 text-sm ${muted}`}>No runs match this view.</p>;
  const th = "px-2 py-1.5 text-left text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
  return (
    <form method="get" action={`/w/${ws}/compare`} className="mt-4 overflow-x-auto" aria-label="Compare runs">
      <table className="w-full min-w-[64rem] border-collapse text-sm" data-testid="runs-table">
        <caption className="sr-only">Runs</caption>
        <thead className="border-b border-zinc-200 dark:border-zinc-800">
          <tr>
            <th scope="col" className={th}>
              <span className="sr-only">Compare</span>
            </th>
            <th scope="col" className={th}>
              State
            </th>
            <th scope="col" className={th}>
              Goal
            </th>
            <th scope="col" className={th}>
              Room
            </th>
            <th scope="col" className={th}>
              Harness · agent
            </th>
            <th scope="col" className={th}>
              Started by
            </th>
            <th scope="col" className={th}>
              Started
            </th>
            <th scope="col" className={th}>
              Duration
            </th>
            <th scope="col" className={th}>
              Steps
            </th>
            <th scope="col" className={th}>
              Tokens · cost
            </th>
            <th scope="col" className={th}>
              Changes
            </th>
            <th scope="col" className={th}>
              Review
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 dark:divide-zinc-900">
          {runs.map((r) => {
            const status = statusText(r);
            return (
              <tr key={r.id} data-testid="run-row" data-run-id={r.id} data-status={status} className="align-top">
                <td className="px-2 py-2">
                  <input
                    type="checkbox"
                    name="run"
                    value={r.id}
                    aria-label={`Compare: ${r.goal}`}
                    data-testid="compare-pick"
                  />
                </td>
                <td className="px-2 py-2">
                  <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATUS_TONE[status] ?? ""}`}>
                    {status}
                  </span>
                </td>
                <td className="max-w-80 px-2 py-2">
                  <Link className={`${link} line-clamp-2 break-words`} href={`/w/${ws}/runs/${r.id}`}>
                    {r.goal}
                  </Link>
                </td>
                <td className="px-2 py-2">{names.rooms[r.space_id] ?? "—"}</td>
                <td className="px-2 py-2">
                  {r.harness_id ? (
                    (names.harnesses[r.harness_id] ?? r.harness_id)
                  ) : (
                    <span className={muted}>waiting for a runner</span>
                  )}
                  {r.agent && <span className={muted}> · {r.agent}</span>}
                </td>
                <td className="px-2 py-2">
                  {r.person_id ? (
                    (names.persons[r.person_id] ?? "someone")
                  ) : (
                    <span className={muted}>at the harness</span>
                  )}
                </td>
                <td className="whitespace-nowrap px-2 py-2 tabular-nums">{when(r.started_at ?? r.created_at)}</td>
                <td className="whitespace-nowrap px-2 py-2 tabular-nums" data-testid="run-duration">
                  {took(r.duration_ms)}
                </td>
                <td className="px-2 py-2 tabular-nums">
                  {r.steps_planned ? `${r.steps_done}/${r.steps_planned}` : "—"}
                </td>
                <td className="whitespace-nowrap px-2 py-2 tabular-nums">
                  {tokens(r.tokens)} · {usd(r.cost_usd)}
                </td>
                <td className="whitespace-nowrap px-2 py-2 tabular-nums">
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
                </td>
                <td className="px-2 py-2">
                  {r.verdict ? (
                    VERDICT_TEXT[r.verdict]
                  ) : r.annotations ? (
                    `${r.annotations} notes`
                  ) : (
                    <span className={muted}>—</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button type="submit" className={`${button} mt-2`} data-testid="compare-selected">
        Compare the runs ticked
      </button>
    </form>
  );
}
