import { rollupsPage } from "@/lib/server/pages/review";
import { rollupLabel } from "@/lib/core/review/rollups";
import { ReviewNav } from "@/components/review/review-nav";
import { RollupCharts, type ChartPoint } from "@/components/review/rollup-charts";
import { button, field, link, muted, took, tokens, usd } from "@/components/review/format";

export const dynamic = "force-dynamic";

const BY: [string, string][] = [
  ["day", "day"],
  ["week", "week"],
  ["harness", "harness or runner"],
  ["agent", "agent"],
  ["person", "person"],
  ["room", "room"],
  ["tool", "tool (its calls)"],
];

/** Rollups of the workspace's runs ([ROL1]): per day/week or harness, agent, person, room — or their tool calls per tool ([TOOL6]) — as charts, a table and a CSV. */
export default async function RollupsPage({
  params,
  searchParams,
}: {
  params: Promise<{ ws: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { ws } = await params;
  const d = await rollupsPage(ws, await searchParams);
  const label = (key: string | null) => rollupLabel(d.by, key, d.names);
  const calls = d.by === "tool";
  const points: ChartPoint[] = d.rows.map((r) => ({
    label: label(r.key),
    runs: calls ? (r.calls ?? 0) : r.runs,
    failure_pct: r.failure_rate === null ? null : Math.round(r.failure_rate * 1000) / 10,
    p50_s: r.p50_ms === null ? null : Math.round(r.p50_ms / 100) / 10,
    p90_s: r.p90_ms === null ? null : Math.round(r.p90_ms / 100) / 10,
    tokens: r.tokens,
    cost_usd: r.cost_usd === null ? null : Math.round(r.cost_usd * 10000) / 10000,
  }));
  const query = new URLSearchParams({ by: d.by, ...(d.from ? { from: d.from } : {}), ...(d.to ? { to: d.to } : {}) });
  const th = "px-2 py-1 text-left text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
  return (
    <main className="mx-auto max-w-6xl px-6 py-8" data-testid="rollups-page">
      <ReviewNav ws={ws} here="rollups" />
      <h1 className="mt-4 text-xl font-semibold">Rollups</h1>
      <form method="get" className="mt-3 flex flex-wrap items-end gap-2" aria-label="Rollup">
        <label className="flex flex-col gap-0.5 text-xs font-medium">
          Per
          <select name="by" defaultValue={d.by} className={field} data-testid="rollup-by">
            {BY.map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-0.5 text-xs font-medium">
          From (UTC day)
          <input name="from" type="date" defaultValue={d.from ?? ""} className={field} />
        </label>
        <label className="flex flex-col gap-0.5 text-xs font-medium">
          To
          <input name="to" type="date" defaultValue={d.to ?? ""} className={field} />
        </label>
        <button type="submit" className={button} data-testid="rollup-apply">
          Show
        </button>
        <a
          className={link}
          href={`/api/v1/workspaces/${ws}/review/rollups?${query}&format=csv`}
          download
          data-testid="rollup-csv"
        >
          Download CSV
        </a>
      </form>
      {d.problem && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-400">
          {d.problem}
        </p>
      )}
      {d.rows.length === 0 ? (
        <p className={`mt-6 text-sm ${muted}`}>{calls ? "No tool calls in this span." : "No runs in this span."}</p>
      ) : (
        <>
          <div className="mt-6">
            <RollupCharts points={points} calls={calls} />
          </div>
          <table className="mt-8 w-full text-sm tabular-nums" data-testid="rollup-table">
            <caption className="sr-only">Runs per {d.by}</caption>
            <thead>
              <tr>
                <th className={th}>{d.by}</th>
                <th className={th}>runs</th>
                {calls && <th className={th}>calls</th>}
                <th className={th}>failed / {calls ? "ended" : "finished"}</th>
                <th className={th}>failure rate</th>
                <th className={th}>median</th>
                <th className={th}>p90</th>
                <th className={th}>tokens</th>
                <th className={th}>cost</th>
              </tr>
            </thead>
            <tbody>
              {d.rows.map((r) => (
                <tr
                  key={r.key ?? ""}
                  data-testid="rollup-row"
                  data-key={r.key ?? ""}
                  data-label={label(r.key)}
                  data-runs={r.runs}
                  data-calls={r.calls ?? ""}
                  data-failed={r.failed}
                  data-finished={r.finished}
                  data-p50-ms={r.p50_ms ?? ""}
                  data-p90-ms={r.p90_ms ?? ""}
                  data-tokens={r.tokens ?? ""}
                  data-cost={r.cost_usd ?? ""}
                  className="border-t border-zinc-100 dark:border-zinc-800"
                >
                  <td className="px-2 py-1">{label(r.key)}</td>
                  <td className="px-2 py-1">{r.runs}</td>
                  {calls && <td className="px-2 py-1">{r.calls}</td>}
                  <td className="px-2 py-1">
                    {r.failed} / {r.finished}
                  </td>
                  <td className="px-2 py-1">
                    {r.failure_rate === null ? "—" : `${(r.failure_rate * 100).toFixed(1)}%`}
                  </td>
                  <td className="px-2 py-1">{took(r.p50_ms)}</td>
                  <td className="px-2 py-1">{took(r.p90_ms)}</td>
                  <td className="px-2 py-1">{tokens(r.tokens)}</td>
                  <td className="px-2 py-1">{usd(r.cost_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
