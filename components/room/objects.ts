/**
 * Reading a run's artifact from the object store ([RN3]): ask Chips for a signed,
 * expiring URL with the session cookie, read it at once, and forget it. The URL is never
 * kept in state: each "Show diff" or "output" click asks again.
 */
import { downloadText, failureLine, objectUrl } from "@/lib/browser/api";

/** Artifacts past this size are not pulled into the page. */
export const MAX_OBJECT_BYTES = 20 * 1024 * 1024;

export class ObjectError extends Error {}

const refusedAs = (e: unknown, unreachable: string, what: string) =>
  new ObjectError(failureLine(e, unreachable, (s) => `Could not load the ${what} (${s}).`));

/** The artifact `sha256` of run `runId`, as text. Throws an ObjectError with a sentence to show. */
export async function readObject(runId: string, sha256: string, what: string): Promise<string> {
  let url: unknown;
  try {
    url = await objectUrl(runId, sha256);
  } catch (e) {
    throw refusedAs(e, `Could not reach Chips for the ${what}.`, what);
  }
  if (typeof url !== "string" || !url) throw new ObjectError(`Chips gave no address for the ${what}.`);
  // Same origin only: the signed URL is ours; anything else is not followed.
  const target = new URL(url, window.location.href);
  if (target.origin !== window.location.origin)
    throw new ObjectError(`The ${what} is stored elsewhere; it is not loaded here.`);
  try {
    return await downloadText(target);
  } catch (e) {
    throw refusedAs(e, `Could not download the ${what}.`, what);
  }
}

/** "1.2 KB", "3.4 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
