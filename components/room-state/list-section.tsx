import type { ReactNode } from "react";
import { Button } from "../ui/button";

/**
 * One list of the room's state (its decisions, its tasks): the heading with the count, a
 * button that opens the form to add one (gone while a form is open, absent for a viewer), the
 * form, a line when the list is empty, then the list.
 */
export function ListSection({
  label,
  testId,
  count,
  add,
  form,
  empty,
  children,
}: {
  label: string;
  testId: string;
  count: number;
  /** The add button's words and test id, and what it does; left out where the person may not edit. */
  add?: { label: string; testId: string; onClick: () => void };
  /** The open form, if any. */
  form: ReactNode;
  empty: string;
  children: ReactNode;
}) {
  return (
    <section data-testid={testId} aria-label={label} className="space-y-2">
      <div className="flex items-center">
        <h3 className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          {label} ({count})
        </h3>
        {add && !form && (
          <Button data-testid={add.testId} className="ml-auto" onClick={add.onClick}>
            {add.label}
          </Button>
        )}
      </div>
      {form}
      {count === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{empty}</p>}
      {children}
    </section>
  );
}
