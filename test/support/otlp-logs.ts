/**
 * OTLP/JSON log requests shaped as Claude Code 2.1.141 and Codex 0.169 send them (measured:
 * resource, scope, body, `event.name`, `event.sequence`, `prompt.id`; Codex's `timeUnixNano: "0"`
 * and `body: null`, its ints as strings) — for the cases a real CLI will not produce on demand:
 * a result before its decision, a resend in another order.
 */
type Value = string | number | boolean;
const anyValue = (v: Value) =>
  typeof v === "string"
    ? { stringValue: v }
    : typeof v === "boolean"
      ? { boolValue: v }
      : Number.isInteger(v)
        ? { intValue: v }
        : { doubleValue: v };
const kvs = (o: Record<string, Value>) => Object.entries(o).map(([key, v]) => ({ key, value: anyValue(v) }));

export interface LogSpec {
  name: string;
  attrs: Record<string, Value>;
}

export function claudeLogs(session: string, specs: LogSpec[], prompt = "2c1f3a7e-0000-4000-8000-0000000000aa") {
  const t0 = Date.now() - 30_000;
  const records = specs.map((s, i) => ({
    timeUnixNano: `${t0 + i * 10}000000`,
    observedTimeUnixNano: `${t0 + i * 10}000000`,
    body: { stringValue: `claude_code.${s.name}` },
    attributes: kvs({
      "user.id": "u".repeat(16),
      "session.id": session,
      "terminal.type": "non-interactive",
      "event.name": s.name,
      "event.timestamp": new Date(t0 + i * 10).toISOString(),
      "event.sequence": i,
      "prompt.id": prompt,
      ...s.attrs,
    }),
  }));
  return {
    session,
    records,
    body: (part: unknown[]) => ({
      resourceLogs: [
        {
          resource: { attributes: kvs({ "service.name": "claude-code", "service.version": "2.1.141" }) },
          scopeLogs: [{ scope: { name: "com.anthropic.claude_code.events", version: "2.1.141" }, logRecords: part }],
        },
      ],
    }),
  };
}

export function codexLogs(conversation: string, specs: LogSpec[]) {
  const t0 = Date.now() - 30_000;
  const records = specs.map((s, i) => ({
    timeUnixNano: "0",
    observedTimeUnixNano: `${t0 + i * 7}123456`,
    severityNumber: 9,
    severityText: "INFO",
    body: null,
    eventName: "event otel/src/events/session_telemetry.rs:703",
    attributes: kvs({
      "event.name": s.name,
      "event.timestamp": new Date(t0 + i * 7).toISOString(),
      "conversation.id": conversation,
      "app.version": "0.169.0",
      originator: "codex_exec",
      model: "mock-model",
      ...s.attrs,
    }),
  }));
  return {
    session: conversation,
    records,
    body: (part: unknown[]) => ({
      resourceLogs: [
        {
          resource: { attributes: kvs({ "service.name": "codex_exec", "service.version": "0.169.0", env: "test" }) },
          scopeLogs: [{ scope: { name: "codex_otel.log_only" }, logRecords: part }],
        },
      ],
    }),
  };
}
