"use client";

import { useRef, useState } from "react";
import { ApiError } from "@/lib/browser/api";
import { placeRefusal, type Refusal, type RefusalWords } from "@/lib/browser/refusal";

export interface ActionOptions<A extends unknown[], T> extends RefusalWords {
  /** The body fields the form shows beside their inputs: a refusal at one of them shows there. */
  fields?: readonly string[];
  /** After Chips took it: what the form does next (clear its inputs, close, refresh the page). */
  onDone?: (value: T, ...args: A) => void;
  /** After a refusal, besides showing it: what the form keeps of it (the room as it now is on a conflict). */
  onRefused?: (refusal: ApiError, ...args: A) => void;
}

export interface Action<A extends unknown[]> {
  /** Send it; true when Chips took it. A press while one is in flight sends nothing. */
  run: (...args: A) => Promise<boolean>;
  /** In flight: its button is busy. */
  busy: boolean;
  /** The form's line: Chips unreachable, or what no field shows. */
  error: string | null;
  /** Body field → what is wrong with it. */
  fields: Readonly<Record<string, string>>;
  /** The last refusal as Chips answered it: its code and the problem's extras (`current`, `unmet` …). */
  refusal: ApiError | null;
  /** Show a refusal the form found itself, without asking Chips. */
  refuse: (line: string | null, fields?: Record<string, string>) => void;
  /** Forget the refusal (the form was cancelled or closed). */
  reset: () => void;
}

const CLEAR: { busy: boolean; refused: Refusal | null } = { busy: false, refused: null };

/**
 * One request a form (or a button) makes: busy while it is in flight, the `ApiError` it was
 * refused with placed at its field or as the form's line (lib/browser/refusal.ts), cleared
 * when the next one goes through. Every form sends through this hook, so a refusal reads the
 * same everywhere. An error that is not a refusal is a fault of the page: it is thrown on.
 */
export function useAction<A extends unknown[], T>(
  act: (...args: A) => Promise<T>,
  options: ActionOptions<A, T> = {},
): Action<A> {
  const [state, setState] = useState(CLEAR);
  const inFlight = useRef(false);

  async function run(...args: A): Promise<boolean> {
    if (inFlight.current) return false;
    inFlight.current = true;
    setState({ busy: true, refused: null });
    let value: T;
    try {
      value = await act(...args);
    } catch (e) {
      inFlight.current = false;
      if (!(e instanceof ApiError)) {
        setState(CLEAR);
        throw e;
      }
      setState({ busy: false, refused: placeRefusal(e, options.fields, options) });
      options.onRefused?.(e, ...args);
      return false;
    }
    inFlight.current = false;
    setState(CLEAR);
    options.onDone?.(value, ...args);
    return true;
  }

  return {
    run,
    busy: state.busy,
    error: state.refused?.line ?? null,
    fields: state.refused?.fields ?? NO_FIELDS,
    refusal: state.refused?.error ?? null,
    refuse: (line, fields = {}) => setState({ busy: false, refused: { line, fields, error: null } }),
    reset: () => setState(CLEAR),
  };
}

const NO_FIELDS: Readonly<Record<string, string>> = {};
