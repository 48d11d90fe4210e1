import { headers } from "next/headers";
import { services } from "@/lib/server/page-context";
import { PEER_HEADER } from "@/lib/server/http-policy";
import { openShare, type SharedRun } from "@/lib/server/review/shares";

/**
 * A shared view ([SHR1]): no session, only the link's token. Answers null (the page's 404)
 * for a token that opens nothing; the open is logged with the client's address and browser.
 */
export async function sharedPage(token: string): Promise<(SharedRun & { now: string }) | null> {
  const h = await headers();
  const shared = await openShare(services(), token, {
    address: h.get(PEER_HEADER) || null,
    userAgent: h.get("user-agent"),
  });
  return shared && { ...shared, now: new Date().toISOString() };
}
