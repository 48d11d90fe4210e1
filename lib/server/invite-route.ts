import type http from "node:http";
import { sql } from "drizzle-orm";
import { newId, unstorableTextAt } from "@/lib/core/protocol";
import { utf8Length } from "@/lib/core/protocol/fields";
import { persons } from "@/db/schema";
import { resultRows } from "@/db/rows";
import { sha256 } from "./hash";
import type { ChipsServices } from "./services";
import { newSession, sessionCookieHeader } from "./sessions";

/**
 * `GET /invite?code=…&name=…` (the form of app/invite/page.tsx): the invite makes a person
 * of its workspace with its role and the name given, and logs this browser in as them. A
 * single-use invite works once; an expiring one until it expires. Without a name, the page
 * asks for one (answers false: Next renders it). A spent, unknown or expired code goes to
 * the login page; failures count as sign-in attempts of the client's `address` ([OPS1]).
 */
export async function handleInvite(
  svc: Pick<ChipsServices, "attempts" | "config" | "db">,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  address: string | undefined,
): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://x");
  if (url.pathname !== "/invite" || req.method !== "GET") return false;
  const code = url.searchParams.get("code");
  const name = (url.searchParams.get("name") ?? "").trim();
  if (!code || !name) return false;
  // Checked before the invite is spent: a name the store cannot hold (U+0000 from a crafted
  // link) would fail the insert after a single-use invite was used up.
  if (utf8Length(name) > 200 || unstorableTextAt(name)) {
    res.writeHead(303, { location: `/invite?code=${encodeURIComponent(code)}&error=name` }).end();
    return true;
  }
  const used = resultRows<{ workspace_id: string; role: string }>(
    await svc.db.execute(sql`update invites set uses = uses + 1
      where token_hash = ${sha256(code)} and revoked_at is null and expires_at > now() and (not single_use or uses = 0)
      returning workspace_id, role`),
  );
  if (!used.length) {
    const wait = svc.attempts.failed(address, "invite");
    if (wait !== null) {
      res
        .writeHead(429, { "content-type": "text/plain; charset=utf-8", "retry-after": String(wait) })
        .end("Too many failed attempts from this address; wait a minute.");
      return true;
    }
    res
      .writeHead(303, {
        location: "/login?error=invite_used",
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
      })
      .end();
    return true;
  }
  const personId = newId("person");
  await svc.db.insert(persons).values({ id: personId, workspaceId: used[0].workspace_id, name, role: used[0].role });
  const session = await newSession(svc.db, used[0].workspace_id, personId);
  res
    .writeHead(303, {
      location: `/w/${used[0].workspace_id}`,
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
