/**
 * Size limits of protocol v1. The contract leaves the exact values to the implementation;
 * these are documented in docs/PROTOCOL.md §2 and enforced with `422 validation_failed`.
 */
export const LIMITS = {
  /** Largest request body, bytes ([HTTP2] 413). */
  bodyBytes: 1024 * 1024,
  /**
   * Largest OTLP/HTTP body, bytes, before and after gzip ([OTL2] 413). Larger than the events
   * API's: one short Codex run exports ~1.2 MB of spans as JSON in one request (docs/OTEL.md).
   */
  otlpBodyBytes: 4 * 1024 * 1024,
  /** Most events in one batch ([HTTP2] 413). */
  batchEvents: 500,
  idempotencyKey: 255,
  goal: 4000,
  /** A person's prompt: the agent's instructions (`POST /api/v1/runs`, a task's prompt). */
  prompt: 16_000,
  title: 500,
  stepId: 128,
  planSteps: 200,
  sessionRef: 500,
  phase: 64,
  verbPhrase: 500,
  text: 65_536,
  summary: 16_384,
  note: 4000,
  reason: 4000,
  runnerMessage: 16_384,
  name: 200,
  /** An ask ([ASK1]): the tool it is about, its one-line summary, the command, paths, question, options. */
  askTool: 128,
  askSummary: 500,
  askCommand: 4000,
  askPaths: 50,
  askPath: 1000,
  askQuestion: 4000,
  askOptionId: 64,
  askOptionLabel: 200,
  askPermissionOptions: 10,
  askQuestionOptions: 20,
  askSource: 64,
  /** The longest an ask may wait for a person before the agent's safe default applies: a day. */
  askExpiresSeconds: 86_400,
  /** Largest estimate_seconds accepted (a week). */
  estimateSeconds: 7 * 24 * 3600,
} as const;
