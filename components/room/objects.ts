/**
 * Reading a run's artifact from the object store ([RN3]): ask Chips for a signed,
 * expiring URL with the session cookie, read it at once, and forget it. The URL is never
 * kept in state: each "Show diff" or "output" click asks again.
 */

/** Artifacts past this size are not pulled into the page. */
export const MAX_OBJECT_BYTES = 20 * 1024 * 1024;

export class ObjectError extends Error {}

async function problem(res: Response, what: string): Promise<ObjectError> {
  const p = (await res.json().catch(() => null)) as { detail?: string } | null;
  return new ObjectError(p?.detail ?? `Could not load the ${what} (${res.status}).`);
}

/** The artifact `sha256` of run `runId`, as text. Throws an ObjectError with a sentence to show. */
export async function readObject(runId: string, sha256: string, what: string): Promise<string> {
  const signed = await fetch(`/api/v1/runs/${encodeURIComponent(runId)}/objects/${encodeURIComponent(sha256)}`, { cache: "no-store" }).catch(() => null);
  if (!signed) throw new ObjectError(`Could not reach Chips for the ${what}.`);
  if (!signed.ok) throw await problem(signed, what);
  const { url } = (await signed.json()) as { url?: string };
  if (typeof url !== "string" || !url) throw new ObjectError(`Chips gave no address for the ${what}.`);
  // Same origin only: the signed URL is ours; anything else is not followed.
  const target = new URL(url, window.location.href);
  if (target.origin !== window.location.origin) throw new ObjectError(`The ${what} is stored elsewhere; it is not loaded here.`);
  const body = await fetch(target, { cache: "no-store", credentials: "same-origin" }).catch(() => null);
  if (!body) throw new ObjectError(`Could not download the ${what}.`);
  if (!body.ok) throw await problem(body, what);
  return body.text();
}

/** "1.2 KB", "3.4 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
