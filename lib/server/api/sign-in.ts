import type { Context } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { problem, type ProblemError } from "@/lib/core/protocol";
import type { Credential } from "../credentials";
import { readCookie, SESSION_COOKIE } from "../sessions";
import { sameOrigin } from "../origin";
import type { ChipsServices } from "../services";
import { bearer, type ApiEnv } from "./http";

/**
 * Who calls the API ([HTTP2]: 401 first): a bearer token, or a person's session cookie —
 * then writes must come from our own pages (Origin checked). The credential is always looked
 * up: a valid one is in whatever its address did before ([OPS1]); a bad one costs the client's
 * address an attempt, and past its budget is answered 429 with Retry-After instead of 401.
 * Answers the credential, or the refusal (the caller answers it as problem+json).
 */
export async function signIn(
  svc: Pick<ChipsServices, "attempts" | "clientAddress" | "config" | "credentials" | "sessions">,
  c: Context<ApiEnv>,
): Promise<Credential | ProblemError> {
  const token = bearer(c);
  if (token) {
    const cred = await svc.credentials.resolve(token);
    return cred ?? refuse(svc, c, "bearer token", "this bearer token is not valid");
  }
  const cookie = readCookie(c.req.header("cookie"), SESSION_COOKIE);
  const cred = await svc.sessions.resolve(cookie);
  const login = "log in with a room link (npx chips login), or send a bearer token";
  if (!cred) return cookie ? refuse(svc, c, "session cookie", login) : problem("unauthorized", login);
  if (
    c.req.method !== "GET" &&
    c.req.method !== "HEAD" &&
    !sameOrigin(c.req.header("origin"), c.req.header("host"), svc.config.publicUrl)
  )
    return problem("forbidden", "cross-site request refused: a cookie-authenticated write must come from a Chips page");
  return cred;
}

/** A failed sign-in: 401, or 429 with Retry-After once the client's address has spent its attempts. */
function refuse(
  svc: Pick<ChipsServices, "attempts" | "clientAddress">,
  c: Context<ApiEnv>,
  what: string,
  detail: string,
): ProblemError {
  const address = svc.clientAddress(getConnInfo(c).remote.address, c.req.header("x-forwarded-for"));
  const wait = svc.attempts.failed(address, what);
  if (wait === null) return problem("unauthorized", detail);
  return {
    ...problem("rate_limited", "too many failed sign-in attempts from this address; wait and try again"),
    retryAfter: wait,
  };
}
