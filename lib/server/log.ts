import pino from "pino";

/**
 * The server's structured log (pino: JSON lines on stdout, one object per line). Secrets
 * never reach it: tokens, cookies, login and invite secrets and signatures are redacted
 * by path, and URLs are logged through `safePath`, which drops every query value.
 */
export const log = pino({
  level: process.env.CHIPS_LOG_LEVEL || (process.env.VITEST ? "warn" : "info"),
  base: { service: "chips" },
  redact: {
    paths: [
      "token",
      "*.token",
      "secret",
      "*.secret",
      "cookie",
      "*.cookie",
      "authorization",
      "*.authorization",
      "headers.authorization",
      "headers.cookie",
      "req.headers.authorization",
      "req.headers.cookie",
      "*.headers.cookie",
      "*.headers.authorization",
      "set-cookie",
      "*.set-cookie",
    ],
    censor: "[redacted]",
  },
  serializers: { err: pino.stdSerializers.err },
});

/** A request's path for the log: the query's values (login secrets, signatures) are dropped. */
export function safePath(url: string | undefined): string {
  const raw = url ?? "/";
  const q = raw.indexOf("?");
  if (q < 0) return raw.slice(0, 500);
  const names = raw
    .slice(q + 1)
    .split("&")
    .map((p) => p.split("=")[0])
    .filter(Boolean);
  return `${raw.slice(0, Math.min(q, 500))}?${names.map((n) => `${n.slice(0, 40)}=…`).join("&")}`;
}
