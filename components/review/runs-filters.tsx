import Link from "next/link";
import type { RunFilter } from "@/lib/core/protocol";
import type { ReviewNames } from "@/lib/core/views/review-pages";
import { Button } from "../ui/button";
import { Field, Input, Select } from "../ui/field";
import { link, muted } from "./format";

/** The filters whose choices are fixed: the filter, its label, its choices as [value, words]. */
const FIXED = [
  [
    "change_set",
    "Change-set",
    [
      ["yes", "has one"],
      ["no", "none"],
    ],
  ],
  [
    "failed_checks",
    "Failed checks",
    [
      ["yes", "some failed"],
      ["no", "none failed"],
    ],
  ],
  [
    "review",
    "Review",
    [
      ["unreviewed", "unreviewed"],
      ["annotated", "annotated"],
      ["approved", "approved"],
      ["needs_work", "needs work"],
      ["rejected", "rejected"],
    ],
  ],
  [
    "sort",
    "Sort by",
    [
      ["started", "started"],
      ["duration", "duration"],
      ["cost", "cost"],
    ],
  ],
  [
    "dir",
    "Order",
    [
      ["desc", "newest / largest first"],
      ["asc", "oldest / smallest first"],
    ],
  ],
] as const satisfies readonly (readonly [keyof RunFilter, string, readonly (readonly [string, string])[]])[];

/** A filter of the view: a labelled select whose first choice is "any". */
function Choice({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value: string | undefined;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <Field label={label} compact>
      <Select
        name={name}
        defaultValue={value ?? ""}
        data-testid={`filter-${name}`}
        options={[["", "any"], ...options]}
      />
    </Field>
  );
}

function Text({
  name,
  label,
  value,
  type,
}: {
  name: string;
  label: string;
  value: string | number | undefined;
  type: "date" | "number";
}) {
  return (
    <Field label={label} compact>
      <Input
        name={name}
        type={type}
        defaultValue={value ?? ""}
        data-testid={`filter-${name}`}
        min={type === "number" ? 0 : undefined}
      />
    </Field>
  );
}

/**
 * The runs page's filters: a plain GET form, so every filter lands in the URL ([REV1]) and a
 * view is a link — bookmarked, shared, saved.
 */
export function RunsFilters({
  ws,
  f,
  names,
  agents,
}: {
  ws: string;
  f: RunFilter;
  names: ReviewNames;
  agents: string[];
}) {
  const entries = (r: Record<string, string>) => Object.entries(r).sort((a, b) => a[1].localeCompare(b[1]));
  return (
    <form method="get" action={`/w/${ws}/runs`} role="search" aria-label="Filter runs" className="mt-4 space-y-3">
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Search goals, messages, steps, statuses and commands" compact className="min-w-64 flex-1">
          <Input
            name="q"
            type="search"
            defaultValue={f.q ?? ""}
            className="w-full"
            data-testid="filter-q"
            placeholder="e.g. invoice, Zürich, 請求書"
          />
        </Field>
        <Button type="submit" data-testid="filter-apply">
          Apply
        </Button>
        <Link href={`/w/${ws}/runs`} className={`${link} py-1 text-sm`}>
          Clear
        </Link>
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <Choice
          name="status"
          label="State / outcome"
          value={f.status}
          options={["succeeded", "failed", "cancelled", "running", "paused", "queued"].map((s) => [s, s])}
        />
        <Choice name="space" label="Room" value={f.space} options={entries(names.rooms)} />
        <Choice name="harness" label="Harness or runner" value={f.harness} options={entries(names.harnesses)} />
        <Choice name="agent" label="Agent" value={f.agent} options={agents.map((a) => [a, a])} />
        <Choice name="person" label="Started by" value={f.person} options={entries(names.persons)} />
        <Text name="from" label="From" type="date" value={f.from} />
        <Text name="to" label="To" type="date" value={f.to} />
        <Text name="min_duration" label="Min duration (s)" type="number" value={f.min_duration} />
        <Text name="max_duration" label="Max duration (s)" type="number" value={f.max_duration} />
        {FIXED.map(([name, label, options]) => (
          <Choice key={name} name={name} label={label} value={f[name]} options={options} />
        ))}
      </div>
      <p className={`text-xs ${muted}`}>Times are UTC. Durations in seconds.</p>
    </form>
  );
}
