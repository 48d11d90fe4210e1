"use client";

import { createContext, useContext, useId, type ComponentProps, type ReactNode } from "react";

/** What a control inside a Field takes from it: its id, whether it is at fault, what describes it. */
interface FieldWiring {
  id: string;
  invalid: boolean;
  describedBy: string | undefined;
  compact: boolean;
}
const FieldContext = createContext<FieldWiring | null>(null);

const muted = "font-normal text-zinc-600 dark:text-zinc-400";

export interface FieldProps {
  label: ReactNode;
  /** A word after the label, in parentheses: "optional", "markdown", "one per line". */
  note?: string;
  /** A sentence under the control. */
  hint?: ReactNode;
  /** What is wrong with it (a refusal's message at this field's pointer). */
  error?: string;
  /** The body field it edits: the error's `data-field`. */
  name?: string;
  /** The error's test id (default `field-error`). */
  errorTestId?: string;
  /** Small labels, controls sized to their content: filter bars and inline forms. */
  compact?: boolean;
  /** The label is for screen readers only. */
  hideLabel?: boolean;
  /** The control is a group of several (checkboxes, radios): the label names the group, not one input. */
  group?: boolean;
  className?: string;
  children: ReactNode;
}

/**
 * A labelled control: the label, the control (Input, TextArea or Select below, or a group
 * wired by `useFieldGroup()`), a hint and the error, tied together by ids so a
 * screen reader reads the error with the control and `aria-invalid` marks it.
 */
export function Field({
  label,
  note,
  hint,
  error,
  name,
  errorTestId = "field-error",
  compact = false,
  hideLabel = false,
  group = false,
  className,
  children,
}: FieldProps) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const labelClass = hideLabel
    ? "sr-only"
    : compact
      ? "mb-0.5 block text-xs font-medium"
      : "mb-1 block text-sm font-medium";
  return (
    <div className={className}>
      {group ? (
        <span id={`${id}-label`} className={labelClass}>
          {label}
          {note && <span className={muted}> ({note})</span>}
        </span>
      ) : (
        <label htmlFor={id} className={labelClass}>
          {label}
          {note && <span className={muted}> ({note})</span>}
        </label>
      )}
      <FieldContext.Provider value={{ id, invalid: !!error, describedBy, compact }}>{children}</FieldContext.Provider>
      {hint && (
        <p id={`${id}-hint`} className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      )}
      {error && (
        <p
          id={`${id}-error`}
          data-testid={errorTestId}
          data-field={name}
          className="mt-1 text-xs text-red-700 dark:text-red-400"
        >
          {error}
        </p>
      )}
    </div>
  );
}

/** What a control inside a Field spreads on itself: its id, whether it is at fault, what describes it. */
function wiring(f: FieldWiring | null) {
  return f ? { id: f.id, "aria-invalid": f.invalid || undefined, "aria-describedby": f.describedBy } : {};
}

/** The wiring of a group of controls inside a `group` Field (checkboxes, radios): named by the Field's label. */
export function useFieldGroup() {
  const f = useContext(FieldContext);
  return f ? { ...wiring(f), role: "group", "aria-labelledby": `${f.id}-label` } : {};
}

const control = (compact: boolean, className: string | undefined) =>
  [
    "rounded-md border border-zinc-300 bg-white text-sm focus-visible:outline-2 focus-visible:outline-blue-600 aria-[invalid=true]:border-red-600 dark:border-zinc-700 dark:bg-zinc-900 dark:aria-[invalid=true]:border-red-400",
    compact ? "px-2 py-1" : "w-full px-2.5 py-1.5",
    className,
  ]
    .filter(Boolean)
    .join(" ");

/** Sized to its content, not to the line (a Field's `compact` says it for the controls inside). */
type Compact = { compact?: boolean };

/** A text box; inside a Field it takes the Field's id, error and hint. */
export function Input({ compact, className, ...rest }: ComponentProps<"input"> & Compact) {
  const f = useContext(FieldContext);
  return <input {...wiring(f)} {...rest} className={control(compact ?? !!f?.compact, className)} />;
}

export function TextArea({ compact, className, ...rest }: ComponentProps<"textarea"> & Compact) {
  const f = useContext(FieldContext);
  return <textarea {...wiring(f)} {...rest} className={control(compact ?? !!f?.compact, className)} />;
}

/** A native select (keyboard, screen readers and Playwright's selectOption all know it) of `[value, text]` options. */
export function Select({
  options,
  compact,
  className,
  ...rest
}: ComponentProps<"select"> & Compact & { options: readonly (readonly [string, string])[] }) {
  const f = useContext(FieldContext);
  return (
    <select {...wiring(f)} {...rest} className={control(compact ?? !!f?.compact, className)}>
      {options.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </select>
  );
}
