import type { Socket } from "socket.io";
import type { WorkspaceCredential } from "../credentials";
import type { ChipsServices } from "../services";
import { readCookie, SESSION_COOKIE } from "../sessions";
import { sameOrigin } from "../origin";

/**
 * A person's session cookie (Origin checked: a cross-site page must not ride on it), or a
 * person API token in the handshake's `auth.token` for scripts and tests.
 */
export async function authenticate(svc: ChipsServices, socket: Socket): Promise<WorkspaceCredential | null> {
  const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  const address = socket.handshake.address;
  if (svc.attempts.blocked(address) !== null) return null;
  if (typeof token === "string") {
    const cred = await svc.credentials.resolve(token);
    if (!cred) svc.attempts.failed(address);
    return cred?.kind === "person" ? cred : null;
  }
  const headers = socket.handshake.headers;
  const cookie = readCookie(headers.cookie, SESSION_COOKIE);
  const cred = await svc.sessions.resolve(cookie);
  if (!cred && cookie) svc.attempts.failed(address);
  if (!cred || cred.kind === "admin") return null;
  const origin = headers.origin;
  if (origin && !sameOrigin(origin, headers.host, svc.config.publicUrl)) return null;
  return cred;
}
