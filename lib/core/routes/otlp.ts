import { z } from "zod";
import { LIMITS } from "../protocol/limits";
import { route } from "../protocol/route";

/**
 * OTLP/HTTP in (docs/OTEL.md [OTL1], [OTL2]): the paths an OpenTelemetry exporter appends to
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, on the Chips port. A harness's (or a runner's) bearer token says
 * whose runs the records become; the handler decodes the bytes (protobuf or JSON, gzip allowed)
 * and answers OTLP's Export*ServiceResponse in the request's own encoding.
 */

const common = {
  method: "post",
  tag: "OpenTelemetry",
  who: {
    kinds: ["harness", "runner"],
    refusal: "OTLP takes a harness token: OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer <token>",
  },
  body: {
    schema: z.string().describe("the signal's Export*ServiceRequest as protobuf"),
    media: "application/x-protobuf",
    also: {
      "application/protobuf": z.string().describe("the same, by its other name"),
      "application/json": z.record(z.string(), z.unknown()).describe("the request as OTLP/JSON"),
    },
    maxBytes: LIMITS.otlpBodyBytes,
  },
  // bad_request: a body that does not decode; the others are the events API's load refusals, which exporters retry.
  errors: ["bad_request", "rate_limited", "overloaded"],
} as const;

/** The Export*ServiceResponse: empty when everything was taken, else how many `rejected` items and why. */
const answers = (rejected: string) => ({
  200: {
    description: "taken: the Export*ServiceResponse in the request's encoding, empty or with its partial success",
    schema: z.object({
      partialSuccess: z
        .object({ [rejected]: z.string(), errorMessage: z.string() })
        .partial()
        .optional(),
    }),
    also: { "application/x-protobuf": z.string().describe("the response as protobuf") },
  },
});

export const OTLP_ROUTES = {
  otlpTraces: route({
    ...common,
    path: "/v1/traces",
    summary: "OTLP/HTTP spans: GenAI spans become runs, tool calls, usage and plans of the workspace ([OTL6])",
    answers: answers("rejectedSpans"),
  }),
  otlpLogs: route({
    ...common,
    path: "/v1/logs",
    summary: "OTLP/HTTP logs: Claude Code's and Codex's log events become runs and tool calls ([OTL5])",
    answers: answers("rejectedLogRecords"),
  }),
  otlpMetrics: route({
    ...common,
    path: "/v1/metrics",
    summary: "OTLP/HTTP metrics: taken and kept nowhere (usage comes from the logs)",
    answers: answers("rejectedDataPoints"),
  }),
} as const;
