import type { Socket } from "socket.io";
import type { WorkspaceCredential } from "../credentials";
import type { ChipsServices } from "../services";
import { readCookie, SESSION_COOKIE } from "../sessions";
import { sameOrigin } from "../origin";

/**
 * A person's session cookie (Origin checked: a cross-site page must not ride on it), or a
 * person API token in the handshake's `auth.token` for scripts and tests. A bad one costs the
 * client's address an attempt ([OPS1]); a good one is let in whatever the address did.
 */
export async function authenticate(
  svc: Pick<ChipsServices, "attempts" | "clientAddress" | "config" | "credentials" | "sessions">,
  socket: Socket,
): Promise<WorkspaceCredential | null> {
  const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof token === "string") {
    const cred = await svc.credentials.resolve(token);
    if (!cred) failedHandshake(svc, socket, "socket token");
    return cred?.kind === "person" ? cred : null;
  }
  const headers = socket.handshake.headers;
  const cookie = readCookie(headers.cookie, SESSION_COOKIE);
  const cred = await svc.sessions.resolve(cookie);
  if (!cred && cookie) failedHandshake(svc, socket, "socket cookie");
  if (!cred || cred.kind === "admin") return null;
  const origin = headers.origin;
  if (origin && !sameOrigin(origin, headers.host, svc.config.publicUrl)) return null;
  return cred;
}

/** A handshake's bad credential, counted against the client's address (the socket's peer, or behind trusted proxies theirs). */
export function failedHandshake(
  svc: Pick<ChipsServices, "attempts" | "clientAddress">,
  socket: Socket,
  what: string,
): void {
  svc.attempts.failed(svc.clientAddress(socket.handshake.address, socket.handshake.headers["x-forwarded-for"]), what);
}
