"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/** One group as the charts draw it: its label and figures (durations in seconds, the rate in %). */
export interface ChartPoint {
  label: string;
  runs: number;
  failure_pct: number | null;
  p50_s: number | null;
  p90_s: number | null;
  tokens: number | null;
  cost_usd: number | null;
}

interface Series {
  key: keyof ChartPoint;
  name: string;
  color: string;
}

const CHARTS: { title: string; unit: string; series: Series[] }[] = [
  { title: "Runs", unit: "", series: [{ key: "runs", name: "runs", color: "#2563eb" }] },
  {
    title: "Failure rate",
    unit: "%",
    series: [{ key: "failure_pct", name: "failed of finished (%)", color: "#dc2626" }],
  },
  {
    title: "Duration",
    unit: " s",
    series: [
      { key: "p50_s", name: "median (s)", color: "#0891b2" },
      { key: "p90_s", name: "p90 (s)", color: "#7c3aed" },
    ],
  },
  { title: "Tokens", unit: "", series: [{ key: "tokens", name: "tokens", color: "#059669" }] },
  { title: "Cost", unit: " $", series: [{ key: "cost_usd", name: "cost (USD)", color: "#d97706" }] },
];

/**
 * The rollup's charts ([ROL1]), drawn by recharts (maintained, React 19-ready; its inline
 * style attributes are allowed by our CSP's style-src). Hovering a bar shows its numbers;
 * the table under the charts has them all for keyboards and screen readers.
 */
export function RollupCharts({ points, calls = false }: { points: ChartPoint[]; calls?: boolean }) {
  // By tool ([TOOL6]) the groups count calls, and calls have no tokens or cost of their own.
  const charts = calls
    ? [
        { title: "Calls", unit: "", series: [{ key: "runs" as const, name: "calls", color: "#2563eb" }] },
        ...CHARTS.slice(1, 3),
      ]
    : CHARTS;
  return (
    <div className="grid gap-6 md:grid-cols-2">
      {charts.map((c) => (
        <figure key={c.title} data-testid="rollup-chart" data-chart={c.title} className="min-w-0">
          <figcaption className="mb-1 text-sm font-semibold">{c.title}</figcaption>
          <div className="h-56 w-full text-xs">
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 480, height: 224 }}>
              <BarChart data={points} margin={{ top: 4, right: 8, bottom: 4, left: 0 }} accessibilityLayer>
                <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
                <XAxis dataKey="label" stroke="currentColor" tick={{ fill: "currentColor" }} />
                <YAxis stroke="currentColor" tick={{ fill: "currentColor" }} unit={c.unit} width={64} />
                <Tooltip contentStyle={{ background: "var(--tooltip-bg, #fff)", color: "#18181b" }} />
                {c.series.length > 1 && <Legend />}
                {c.series.map((s) => (
                  <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
        </figure>
      ))}
    </div>
  );
}
