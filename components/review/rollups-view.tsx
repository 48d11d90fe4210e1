import type { AskRollupBy } from "@/lib/core/review/asks";
import { rollupLabel } from "@/lib/core/review/rollups";
import type { RollupsData } from "@/lib/core/views/review-pages";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Input, Select } from "../ui/field";
import { Table, Td } from "../ui/table";
import { link, muted, took, tokens, usd } from "./format";
import { RollupCharts, type ChartPoint } from "./rollup-charts";

const BY = [
  ["day", "day"],
  ["week", "week"],
  ["harness", "harness or runner"],
  ["agent", "agent"],
  ["person", "person"],
  ["room", "room"],
  ["tool", "tool (its calls)"],
] as const;

/** Rollups of the workspace's runs ([ROL1]) — or of their tool calls per tool ([TOOL6]): the grouping asked for (a GET form), its charts, its table and its CSV. */
export function RollupsView({ ws, d }: { ws: string; d: RollupsData }) {
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
  const span = { ...(d.from ? { from: d.from } : {}), ...(d.to ? { to: d.to } : {}) };
  const query = new URLSearchParams({ by: d.by, ...span });
  // Time to answer ([ASKR7]) over the same span, one grouping a download.
  const asksCsv = (by: AskRollupBy) =>
    `/api/v1/workspaces/${ws}/review/rollups/asks?${new URLSearchParams({ by, ...span, format: "csv" })}`;
  return (
    <>
      <form method="get" className="mt-3 flex flex-wrap items-end gap-2" aria-label="Rollup">
        <Field label="Per" compact>
          <Select name="by" defaultValue={d.by} data-testid="rollup-by" options={BY} />
        </Field>
        <Field label="From (UTC day)" compact>
          <Input name="from" type="date" defaultValue={d.from ?? ""} />
        </Field>
        <Field label="To" compact>
          <Input name="to" type="date" defaultValue={d.to ?? ""} />
        </Field>
        <Button type="submit" data-testid="rollup-apply">
          Show
        </Button>
        <a
          className={link}
          href={`/api/v1/workspaces/${ws}/review/rollups?${query}&format=csv`}
          download
          data-testid="rollup-csv"
        >
          Download CSV
        </a>
        {(["person", "agent"] as const).map((by) => (
          <a key={by} className={link} href={asksCsv(by)} download data-testid="ask-rollup-csv" data-by={by}>
            Time to answer per {by} (CSV)
          </a>
        ))}
      </form>
      <Alert className="mt-2 text-sm">{d.problem}</Alert>
      {d.rows.length === 0 ? (
        <p className={`mt-6 text-sm ${muted}`}>{calls ? "No tool calls in this span." : "No runs in this span."}</p>
      ) : (
        <>
          <div className="mt-6">
            <RollupCharts points={points} calls={calls} />
          </div>
          <Table
            caption={`Runs per ${d.by}`}
            className="mt-8 w-full text-sm tabular-nums"
            data-testid="rollup-table"
            columns={[
              d.by,
              "runs",
              ...(calls ? ["calls"] : []),
              `failed / ${calls ? "ended" : "finished"}`,
              "failure rate",
              "median",
              "p90",
              "tokens",
              "cost",
            ]}
          >
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
              >
                <Td>{label(r.key)}</Td>
                <Td>{r.runs}</Td>
                {calls && <Td>{r.calls}</Td>}
                <Td>
                  {r.failed} / {r.finished}
                </Td>
                <Td>{r.failure_rate === null ? "—" : `${(r.failure_rate * 100).toFixed(1)}%`}</Td>
                <Td>{took(r.p50_ms)}</Td>
                <Td>{took(r.p90_ms)}</Td>
                <Td>{tokens(r.tokens)}</Td>
                <Td>{usd(r.cost_usd)}</Td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </>
  );
}
