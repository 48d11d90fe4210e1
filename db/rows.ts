/** Normalise what `execute` returns: an array on postgres-js, `{rows}` on PGlite. */
export function resultRows<T>(res: unknown): T[] {
  if (Array.isArray(res)) return res as T[];
  return ((res as { rows?: T[] }).rows ?? []) as T[];
}
