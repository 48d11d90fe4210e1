/**
 * Cookie-authenticated writes must come from our own pages: the Origin header must be
 * Chips' public origin or the origin of the Host the request was sent to.
 */
export function sameOrigin(
  origin: string | undefined | null,
  host: string | undefined | null,
  publicUrl: string,
): boolean {
  if (!origin) return false;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (o.origin === new URL(publicUrl).origin) return true;
  return !!host && (o.protocol === "http:" || o.protocol === "https:") && o.host === host;
}
