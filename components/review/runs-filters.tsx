import Link from "next/link";
import type { RunFilter } from "@/lib/core/protocol";
import type { ReviewNames } from "@/lib/core/views/review-pages";
import { button, field, link, muted } from "./format";

function Select({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value: string | undefined;
  options: [string, string][];
}) {
  return (
    <label className="flex flex-col gap-0.5 text-xs font-medium">
      {label}
      <select name={name} defaultValue={value ?? ""} className={field} data-testid={`filter-${name}`}>
        <option value="">any</option>
        {options.map(([v, t]) => (
          <option key={v} value={v}>
            {t}
          </option>
        ))}
      </select>
    </label>
  );
}

function Input({
  name,
  label,
  value,
  type = "text",
  placeholder,
}: {
  name: string;
  label: string;
  value: string | number | undefined;
  type?: string;
  placeholder?: string;
}) {
  return (
    <label className="flex flex-col gap-0.5 text-xs font-medium">
      {label}
      <input
        name={name}
        type={type}
        defaultValue={value ?? ""}
        placeholder={placeholder}
        className={field}
        data-testid={`filter-${name}`}
        min={type === "number" ? 0 : undefined}
      />
    </label>
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
        <label className="flex min-w-64 flex-1 flex-col gap-0.5 text-xs font-medium">
          Search goals, messages, steps, statuses and commands
          <input
            name="q"
            type="search"
            defaultValue={f.q ?? ""}
            className={field}
            data-testid="filter-q"
            placeholder="e.g. invoice, Zürich, 請求書"
          />
        </label>
        <button type="submit" className={button} data-testid="filter-apply">
          Apply
        </button>
        <Link href={`/w/${ws}/runs`} className={`${link} py-1 text-sm`}>
          Clear
        </Link>
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <Select
          name="status"
          label="State / outcome"
          value={f.status}
          options={["succeeded", "failed", "cancelled", "running", "paused", "queued"].map((s) => [s, s])}
        />
        <Select name="space" label="Room" value={f.space} options={entries(names.rooms)} />
        <Select name="harness" label="Harness or runner" value={f.harness} options={entries(names.harnesses)} />
        <Select name="agent" label="Agent" value={f.agent} options={agents.map((a) => [a, a])} />
        <Select name="person" label="Started by" value={f.person} options={entries(names.persons)} />
        <Input name="from" label="From" type="date" value={f.from} />
        <Input name="to" label="To" type="date" value={f.to} />
        <Input name="min_duration" label="Min duration (s)" type="number" value={f.min_duration} />
        <Input name="max_duration" label="Max duration (s)" type="number" value={f.max_duration} />
        <Select
          name="change_set"
          label="Change-set"
          value={f.change_set}
          options={[
            ["yes", "has one"],
            ["no", "none"],
          ]}
        />
        <Select
          name="failed_checks"
          label="Failed checks"
          value={f.failed_checks}
          options={[
            ["yes", "some failed"],
            ["no", "none failed"],
          ]}
        />
        <Select
          name="review"
          label="Review"
          value={f.review}
          options={[
            ["unreviewed", "unreviewed"],
            ["annotated", "annotated"],
            ["approved", "approved"],
            ["needs_work", "needs work"],
            ["rejected", "rejected"],
          ]}
        />
        <Select
          name="sort"
          label="Sort by"
          value={f.sort}
          options={[
            ["started", "started"],
            ["duration", "duration"],
            ["cost", "cost"],
          ]}
        />
        <Select
          name="dir"
          label="Order"
          value={f.dir}
          options={[
            ["desc", "newest / largest first"],
            ["asc", "oldest / smallest first"],
          ]}
        />
      </div>
      <p className={`text-xs ${muted}`}>Times are UTC. Durations in seconds.</p>
    </form>
  );
}
