import type http from "node:http";
import type { ChipsServices } from "./services";
import { LOGIN_PARAM, redeemLoginLink, sessionCookieHeader } from "./sessions";

/**
 * A page request carrying `?login=<secret>`: redeem the one-time secret for a session
 * cookie and redirect to the same page without it; a used or unknown secret goes to the
 * login page, which says how to get a new link (or, once the client's `address` has spent its
 * attempts, 429: [OPS1]). Answers false when there is no secret.
 */
export async function handleLoginLink(
  svc: Pick<ChipsServices, "attempts" | "config" | "db">,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  address: string | undefined,
): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://x");
  const secret = url.searchParams.get(LOGIN_PARAM);
  if (secret === null || req.method !== "GET") return false;
  const session = await redeemLoginLink(svc.db, secret);
  if (!session) {
    const wait = svc.attempts.failed(address, "login link");
    if (wait !== null) {
      res.writeHead(429, {
        "content-type": "text/plain; charset=utf-8",
        "retry-after": String(wait),
        "cache-control": "no-store",
      });
      res.end("Too many failed login attempts from this address. Wait a minute, then open a fresh link.");
      return true;
    }
    res.writeHead(303, { location: "/login?error=link_used", "cache-control": "no-store" }).end();
    return true;
  }
  url.searchParams.delete(LOGIN_PARAM);
  const rest = url.searchParams.toString();
  res
    .writeHead(303, {
      location: session.nextPath + (rest ? `?${rest}` : ""),
      "set-cookie": sessionCookieHeader(
        session.cookie,
        session.maxAgeSeconds,
        svc.config.publicUrl.startsWith("https:"),
      ),
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    })
    .end();
  return true;
}
