import type { ApiError } from "./api";

/**
 * Where a refusal shows on a form: each field at fault beside its input (the problem's JSON
 * pointer names it), and a line for the whole form when Chips was not reached or some of what
 * it said belongs to no input the form shows. Every form places a refusal through this one
 * function (components/ui/use-action.ts), so none reads a problem its own way.
 */
export interface Refusal {
  /** The form's line, or null when every fault shows beside its field. */
  line: string | null;
  /** Body field → what is wrong with it. */
  fields: Readonly<Record<string, string>>;
  /** The refusal as Chips answered it (code, status, the problem's extras); null for a check the form made itself. */
  error: ApiError | null;
}

export interface RefusalWords {
  /** The line when Chips did not answer (offline, connection lost). */
  unreachable?: string;
  /** The line for a refusal that came without a sentence. */
  refused?: (status: number) => string;
}

const UNREACHABLE = "Could not reach Chips.";
const REFUSED = (status: number) => `Refused (${status}).`;

/**
 * Place `e` on a form that shows `shown` (top-level body fields) beside their inputs. A
 * pointer into a list (`/write_scope/2`) says which line of the field is wrong.
 */
export function placeRefusal(e: ApiError, shown: readonly string[] = [], words: RefusalWords = {}): Refusal {
  if (e.unreachable) return { line: words.unreachable ?? UNREACHABLE, fields: {}, error: e };
  const line = e.detail ?? (words.refused ?? REFUSED)(e.status);
  const fields: Record<string, string> = {};
  let unplaced = e.errors.length === 0;
  for (const f of e.errors) {
    const [, name = "", index] = f.pointer.split("/");
    if (!shown.includes(name)) {
      unplaced = true;
      continue;
    }
    const message = f.message || line;
    fields[name] ??= index !== undefined && /^\d+$/.test(index) ? `line ${Number(index) + 1}: ${message}` : message;
  }
  return { line: unplaced ? line : null, fields, error: e };
}
