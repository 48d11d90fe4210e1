"use client";

import { useEffect, useRef, type FormHTMLAttributes, type ReactNode } from "react";
import { Button } from "./button";
import type { Action } from "./use-action";

/**
 * A form that sends through `action` (use-action.ts): Enter or its submit button calls
 * `onSubmit` unless a request is in flight, and after a refusal at some field the first
 * field marked invalid takes the focus, so a keyboard or screen-reader user lands on it.
 */
export function Form({
  action,
  onSubmit,
  children,
  ...rest
}: Omit<FormHTMLAttributes<HTMLFormElement>, "onSubmit" | "action"> & {
  action: Pick<Action<never>, "busy" | "fields">;
  onSubmit: () => unknown;
  children: ReactNode;
}) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (Object.keys(action.fields).length)
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]:not([disabled])')?.focus();
  }, [action.fields]);
  return (
    <form
      {...rest}
      ref={form}
      onSubmit={(e) => {
        e.preventDefault();
        if (!action.busy) void onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A form's last line: its submit button (primary, busy while its request is in flight), then Cancel. */
export function SubmitOrCancel({
  testId,
  busy,
  onCancel,
  children,
}: {
  testId: string;
  busy: boolean;
  onCancel: () => void;
  children: ReactNode;
}) {
  return (
    <div className="flex gap-2">
      <Button type="submit" tone="primary" data-testid={testId} busy={busy}>
        {children}
      </Button>
      <Button onClick={onCancel}>Cancel</Button>
    </div>
  );
}
