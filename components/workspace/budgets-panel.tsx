"use client";

import { useCallback, useEffect, useState } from "react";
import type { Budget, BudgetBody } from "@/lib/core/protocol";
import { ApiError, budgets as readBudgets, setBudget } from "@/lib/browser/api";
import { placeRefusal } from "@/lib/browser/refusal";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/field";
import { Form } from "../ui/form";
import { useAction } from "../ui/use-action";
import { heading, muted } from "./panel-style";

const tone: Record<Budget["state"], string> = {
  ok: "text-zinc-700 dark:text-zinc-300",
  warning: "text-amber-800 dark:text-amber-300",
  exhausted: "text-red-700 dark:text-red-300",
};
/** How often the spend is read again while the page is open: usage reports move it. */
const REFRESH_MS = 3000;

/** The form's fields: the body's limits (the text typed, "" for no limit) and the warning share in percent. */
const FIELDS = [
  ["tokens_per_day", "Tokens per day"],
  ["tokens_per_month", "Tokens per month"],
  ["cost_usd_per_day", "Cost per day (USD)"],
  ["cost_usd_per_month", "Cost per month (USD)"],
  ["warn_at", "Warn at (% of a limit)"],
] as const;
type Field = (typeof FIELDS)[number][0];
type Draft = Record<Field, string>;

const draftOf = (b: Budget | undefined): Draft => ({
  tokens_per_day: b?.tokens_per_day?.toString() ?? "",
  tokens_per_month: b?.tokens_per_month?.toString() ?? "",
  cost_usd_per_day: b?.cost_usd_per_day?.toString() ?? "",
  cost_usd_per_month: b?.cost_usd_per_month?.toString() ?? "",
  warn_at: String(Math.round((b?.warn_at ?? 0.8) * 100)),
});
/** Typed text to the body: blank is no limit; a number goes for the server to judge (whole, positive…). */
function bodyOf(d: Draft): { body: BudgetBody } | { fields: Partial<Record<Field, string>> } {
  const notNumbers = FIELDS.filter(([f]) => d[f].trim() !== "" && !Number.isFinite(Number(d[f])));
  if (notNumbers.length) return { fields: Object.fromEntries(notNumbers.map(([f]) => [f, "a number, or blank"])) };
  const limit = (f: Field) => (d[f].trim() === "" ? null : Number(d[f]));
  return {
    body: {
      tokens_per_day: limit("tokens_per_day"),
      tokens_per_month: limit("tokens_per_month"),
      cost_usd_per_day: limit("cost_usd_per_day"),
      cost_usd_per_month: limit("cost_usd_per_month"),
      warn_at: Number(d.warn_at) / 100,
    },
  };
}

const tokens = (n: number) => n.toLocaleString("en");
const usd = (n: number) => `$${n.toFixed(2)}`;
function spendLine(b: Budget) {
  const s = b.spent;
  return `today ${tokens(s.tokens_day)} tokens, ${usd(s.cost_usd_day)} · this month ${tokens(s.tokens_month)} tokens, ${usd(s.cost_usd_month)}`;
}
function limitsLine(b: Budget) {
  const parts = [
    b.tokens_per_day && `${tokens(b.tokens_per_day)} tokens/day`,
    b.tokens_per_month && `${tokens(b.tokens_per_month)} tokens/month`,
    b.cost_usd_per_day && `${usd(b.cost_usd_per_day)}/day`,
    b.cost_usd_per_month && `${usd(b.cost_usd_per_month)}/month`,
  ].filter(Boolean);
  return parts.length ? `${parts.join(", ")}; warns at ${Math.round(b.warn_at * 100)}%` : "no limits";
}

/**
 * An owner's budgets ([BUD2]): for the whole workspace and each harness or runner, its limits
 * (tokens and/or cost, per day and/or month, and the warning share) and its spend now, read
 * again every few seconds; Set opens a form whose refusals show beside their field.
 */
export function BudgetsPanel({
  workspaceId,
  subjects,
}: {
  workspaceId: string;
  subjects: { id: string; name: string; kind: string }[];
}) {
  const [budgets, setBudgets] = useState<Budget[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reread = useCallback(
    () =>
      readBudgets(workspaceId).then(setBudgets, (e: unknown) => {
        if (!(e instanceof ApiError)) throw e;
        setError(
          placeRefusal(e, [], {
            unreachable: "Could not reach Chips to read the budgets.",
            refused: (s) => `Budgets unreadable (${s}).`,
          }).line,
        );
      }),
    [workspaceId],
  );
  useEffect(() => {
    void reread();
    const timer = setInterval(() => void reread(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [reread]);
  const rows = [{ id: "*", name: "Whole workspace", kind: "workspace" }, ...subjects];
  return (
    <section aria-labelledby="budgets-heading" data-testid="budgets-panel">
      <h2 id="budgets-heading" className={heading}>
        Budgets
      </h2>
      <Alert className="mt-1 text-xs">{error}</Alert>
      <ul className="mt-2 divide-y divide-zinc-200 dark:divide-zinc-800">
        {rows.map((s) => {
          const b = budgets.find((x) => x.subject === s.id);
          return (
            <li
              key={s.id}
              data-testid="budget-row"
              data-subject={s.id}
              data-state={b?.state ?? "none"}
              className="py-2"
            >
              <div className="flex flex-wrap items-baseline gap-x-3">
                <span className="text-sm font-medium">{s.name}</span>
                <span className={muted}>{s.kind}</span>
                <span
                  data-testid="budget-limits"
                  className={`text-xs ${b ? tone[b.state] : "text-zinc-600 dark:text-zinc-400"}`}
                >
                  {b ? limitsLine(b) : "no budget"}
                  {b?.state === "warning" && " · nearing the limit"}
                  {b?.state === "exhausted" && " · exhausted: new runs refused"}
                </span>
                {editing !== s.id && (
                  <Button size="xs" data-testid="budget-edit" className="ml-auto" onClick={() => setEditing(s.id)}>
                    {b ? "Change budget" : "Set budget"}
                    <span className="sr-only"> of {s.name}</span>
                  </Button>
                )}
              </div>
              {b && (
                <p data-testid="budget-spend" className={muted}>
                  {spendLine(b)}
                </p>
              )}
              {editing === s.id && (
                <BudgetForm
                  name={s.name}
                  initial={draftOf(b)}
                  save={(body) => setBudget(workspaceId, s.id, body)}
                  done={async () => {
                    setEditing(null);
                    await reread();
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function BudgetForm(p: { name: string; initial: Draft; save: (b: BudgetBody) => Promise<unknown>; done: () => void }) {
  const [draft, setDraft] = useState(p.initial);
  const save = useAction(p.save, {
    fields: FIELDS.map(([f]) => f),
    unreachable: "Could not reach Chips: not saved.",
    refused: (s) => `Not saved (${s}).`,
    onDone: p.done,
  });
  return (
    <Form
      action={save}
      noValidate
      data-testid="budget-form"
      aria-label={`Budget of ${p.name}`}
      className="mt-2 flex flex-wrap items-end gap-3"
      onSubmit={() => {
        const asked = bodyOf(draft);
        return "fields" in asked
          ? save.refuse("Not saved: see the fields marked.", asked.fields)
          : save.run(asked.body);
      }}
    >
      {FIELDS.map(([f, label]) => (
        <Field key={f} label={label} compact error={save.fields[f]} name={f} errorTestId="budget-field-error">
          <Input
            data-testid={`budget-${f}`}
            inputMode="decimal"
            className="w-28"
            value={draft[f]}
            placeholder={f === "warn_at" ? "80" : "no limit"}
            onChange={(e) => setDraft({ ...draft, [f]: e.target.value })}
          />
        </Field>
      ))}
      <Button type="submit" size="xs" data-testid="budget-save" busy={save.busy}>
        Save
      </Button>
      <Button size="xs" onClick={p.done}>
        Cancel
      </Button>
      <Alert testId="budget-error" className="w-full text-xs">
        {save.error}
      </Alert>
    </Form>
  );
}
