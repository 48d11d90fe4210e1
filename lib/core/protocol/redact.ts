/**
 * Redaction of what a tool call says ([TOOL3]) where no list of secrets is known — a person's
 * own terminal (`chips connect`), an AG-UI agent, an agent's OpenTelemetry (lib/server/otel/):
 * values that look like credentials are replaced with `[redacted]` before a summary, input,
 * output or error leaves the machine or is stored. A runner also masks its job's own secrets
 * by value first ([RN4], lib/agents/runner/mask.ts).
 * Patterns, so never complete: the known token shapes, and the value of anything named like a secret.
 */
const PATTERNS: Array<[RegExp, string]> = [
  // NAME=value and NAME: value where the name says secret (API_KEY, GITHUB_TOKEN, DB_PASSWORD…).
  [
    /\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"'&;|]+)/gi,
    "$1$2[redacted]",
  ],
  // Authorization headers and URL credentials.
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g, "$1 [redacted]"],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, "$1[redacted]@"],
  // Well-known token shapes: OpenAI/Anthropic, GitHub, GitLab, Slack, AWS access key ids, npm.
  [/\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g, "[redacted]"],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, "[redacted]"],
  [/\bglpat-[A-Za-z0-9_-]{16,}/g, "[redacted]"],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, "[redacted]"],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, "[redacted]"],
  [/\bnpm_[A-Za-z0-9]{30,}/g, "[redacted]"],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, "[redacted private key]"],
];

/** The text with every credential-looking value replaced. */
export function redact(text: string): string {
  let out = text;
  for (const [re, to] of PATTERNS) out = out.replace(re, to);
  return out;
}
