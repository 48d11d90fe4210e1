"use client";

import { useEffect, useState } from "react";
import type { Budget, BudgetLimit, Run } from "@/lib/core/protocol";
import { budgets as readBudgets } from "@/lib/browser/api";

const figure = (l: BudgetLimit) =>
  l.metric === "tokens"
    ? `${l.spent.toLocaleString("en")} / ${l.limit.toLocaleString("en")} tokens per ${l.period}`
    : `$${l.spent.toFixed(2)} / $${l.limit.toFixed(2)} per ${l.period}`;

const tone: Record<Budget["state"], string> = {
  ok: "border-zinc-300 text-zinc-700 dark:border-zinc-700 dark:text-zinc-300",
  warning: "border-amber-500 bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  exhausted: "border-red-600 bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-200",
};

/**
 * Spend against the workspace's budgets ([BUD2]), in the room's header: each budget's
 * nearest limit, amber past its warning share, red when exhausted (new runs are then
 * refused and running runs were paused). It is read again whenever the room's runs report
 * usage, so it follows the room live.
 */
export function BudgetStrip({ workspaceId, runs }: { workspaceId: string; runs: Run[] }) {
  const [budgets, setBudgets] = useState<Budget[]>([]);
  // Every usage report changes this sum: a new figure to show.
  const used = runs.reduce(
    (n, r) => n + (r.usage ? r.usage.input_tokens + r.usage.output_tokens + (r.usage.cost_usd ?? 0) : 0),
    0,
  );
  useEffect(() => {
    let live = true;
    readBudgets(workspaceId).then(
      (b) => live && setBudgets(b),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [workspaceId, used]);
  if (!budgets.length) return null;
  return (
    <ul aria-label="Budgets" className="flex flex-wrap gap-1.5">
      {budgets.map((b) => (
        <li
          key={b.subject}
          data-testid={`budget-${b.subject}`}
          data-state={b.state}
          className={`rounded-full border px-2 py-0.5 text-xs ${tone[b.state]}`}
        >
          <span className="font-medium">{b.name}</span>
          {b.limit ? `: ${figure(b.limit)}` : ": no limits"}
          {b.state === "warning" && " · nearing the limit"}
          {b.state === "exhausted" && " · exhausted: new runs refused"}
        </li>
      ))}
    </ul>
  );
}
