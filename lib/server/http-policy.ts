import type http from "node:http";
import { randomBytes, randomUUID } from "node:crypto";

/**
 * The headers every answer carries — pages, API, objects and the Socket.IO handshake — so
 * no site can frame the room (click-jacking Pause or Cancel), sniff a type, or read where a
 * person came from.
 */
export function baseHeaders(publicUrl: string): Record<string, string> {
  return {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    // same-origin, not no-referrer: Chrome sends `Origin: null` on a same-origin POST under
    // no-referrer, and cookie writes are checked by their Origin (lib/server/origin.ts).
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
    ...(publicUrl.startsWith("https:") ? { "strict-transport-security": "max-age=31536000" } : {}),
  };
}

/** What API answers, objects and the socket handshake may do in a browser: nothing. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * A page's policy: scripts only with this request's nonce ('strict-dynamic' lets Next's
 * bootstrap load its chunks), no eval outside development (React's dev build needs it),
 * styles from our files (style attributes need 'unsafe-inline'; a nonce would void it),
 * connections to ourselves (the socket), never framed.
 */
function pageCsp(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "worker-src 'self' blob:",
  ].join("; ");
}

/** The header a page request carries with the client's address (set by the server, replacing any sent). */
export const PEER_HEADER = "x-chips-peer";

const newNonce = () => randomBytes(16).toString("base64");

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The request's id: the one a proxy in front sent when it is sane, else a new one. Set on the request and the answer. */
export function requestId(req: http.IncomingMessage, res: http.ServerResponse): string {
  const sent = req.headers["x-request-id"];
  const id = typeof sent === "string" && REQUEST_ID.test(sent) ? sent : randomUUID();
  req.headers["x-request-id"] = id;
  res.setHeader("x-request-id", id);
  return id;
}

/**
 * Headers for a page request: a fresh nonce in the CSP of the answer, and the same policy on
 * the request, where Next.js reads the nonce for its own inline scripts (it looks at the
 * request's `content-security-policy`; a value the client sent is replaced).
 */
export function pageHeaders(req: http.IncomingMessage, res: http.ServerResponse, dev: boolean) {
  const csp = pageCsp(newNonce(), dev);
  req.headers["content-security-policy"] = csp;
  delete req.headers["content-security-policy-report-only"];
  res.setHeader("content-security-policy", csp);
}

/**
 * Whether a page address's path is valid percent-encoding. Next.js answers 500 to a dynamic
 * segment it cannot decode (`/w/%FF`); such an address is the client's mistake: 400 ([HTTP6]).
 */
export function decodablePath(url: string): boolean {
  const q = url.indexOf("?");
  try {
    decodeURIComponent(q < 0 ? url : url.slice(0, q));
    return true;
  } catch {
    return false;
  }
}
