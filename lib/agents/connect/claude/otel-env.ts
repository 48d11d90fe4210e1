/**
 * The environment that connects a Claude Code to Chips by its own OpenTelemetry, with no hooks
 * (`chips connect claude --otel`, docs/CONNECT.md): its log events — prompts, API requests,
 * tool decisions and results with their input — go to Chips' OTLP endpoint under a harness's
 * token, into the room named. Claude Code reads these variables from its settings' `env` or
 * from the shell.
 */
export function claudeOtelEnv(o: { url: string; token: string; spaceId?: string }): Record<string, string> {
  return {
    CLAUDE_CODE_ENABLE_TELEMETRY: "1",
    OTEL_LOGS_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_EXPORTER_OTLP_ENDPOINT: o.url.replace(/\/+$/, ""),
    OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${o.token}`,
    // The tool's input (the command, the file) with each result: a call's summary in the room.
    OTEL_LOG_TOOL_DETAILS: "1",
    // Every 2 s rather than 5: the room follows the session closely (a `-p` run flushes at exit anyway).
    OTEL_LOGS_EXPORT_INTERVAL: "2000",
    ...(o.spaceId ? { OTEL_RESOURCE_ATTRIBUTES: `chips.space.id=${o.spaceId}` } : {}),
  };
}

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The same as `export` lines for a shell. */
export const asShell = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `export ${k}=${shQuote(v)}`)
    .join("\n");
