"use client";

import { useEffect, useRef, type FormHTMLAttributes, type ReactNode } from "react";
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
