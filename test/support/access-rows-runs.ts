import { key, message } from "./api";
import { SHA, all, manage, nobody, read, write, type Row } from "./access-expect";

/** The role matrix's rows for the API's core: health, events, runs, commands, a runner's objects, the room. */
export const RUN_ROUTES: Record<string, Row> = {
  "GET /api/v1/health/live": { req: () => ({ path: "/api/v1/health/live" }), expect: all(200) },
  "GET /api/v1/health": { req: () => ({ path: "/api/v1/health" }), expect: all(200) },
  "GET /api/v1/health/ready": { req: () => ({ path: "/api/v1/health/ready" }), expect: all(200) },
  "GET /api/v1/openapi.json": { req: () => ({ path: "/api/v1/openapi.json" }), expect: all(200) },
  "GET /schemas/:file": { req: () => ({ path: "/schemas/envelope.json" }), expect: all(200) },
  "GET /schemas": { req: () => ({ path: "/schemas" }), expect: all(200) },
  "GET /api/v1/me": { req: () => ({ path: "/api/v1/me" }), expect: { ...all(200), revoked: 401 } },
  "POST /api/v1/events": {
    req: (c) => ({ path: "/api/v1/events", body: { ...message(c.ws, "hi"), actor: undefined } }),
    expect: write(201),
  },
  // OTLP in (docs/OTEL.md [OTL2]): a harness's token only — people (cookie or token) are refused; test/otel-in.test.ts posts as harnesses.
  "POST /v1/traces": { req: () => ({ path: "/v1/traces", body: {} }), expect: nobody() },
  "POST /v1/logs": { req: () => ({ path: "/v1/logs", body: {} }), expect: nobody() },
  "POST /v1/metrics": { req: () => ({ path: "/v1/metrics", body: {} }), expect: nobody() },
  "GET /api/v1/workspaces/:ws/events": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/events` }),
    expect: read(403),
  },
  "GET /api/v1/workspaces/:ws/runs": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/runs` }),
    expect: read(403),
  },
  "GET /api/v1/runs/:run": { req: (c) => ({ path: `/api/v1/runs/${c.runId}` }), expect: read(404) },
  "POST /api/v1/admin/workspaces": { req: () => ({ path: "/api/v1/admin/workspaces", body: {} }), expect: nobody() },
  "POST /api/v1/admin/login-links": {
    req: (c) => ({ path: "/api/v1/admin/login-links", body: { workspace_id: c.ws.workspace_id } }),
    expect: nobody(),
  },
  "POST /api/v1/workspaces/:ws/spaces": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/spaces`, body: { name: "more" } }),
    expect: write(201),
  },
  "POST /api/v1/workspaces/:ws/harnesses": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses`, body: { name: "h" } }),
    expect: manage(201),
  },
  "POST /api/v1/runs/:run/commands": {
    req: (c) => ({
      path: `/api/v1/runs/${c.runId}/commands`,
      body: { command: "steer", text: "this way", idempotency_key: key() },
    }),
    expect: write(201, 404),
  },
  "GET /api/v1/runs/:run/commands": { req: (c) => ({ path: `/api/v1/runs/${c.runId}/commands` }), expect: read(404) },
  // The run's harness is connected (it just posted): a force-finish is refused by the run rules, after the role check.
  "POST /api/v1/runs/:run/force-finish": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/force-finish` }),
    expect: write(409, 404),
  },
  "GET /api/v1/commands": { req: () => ({ path: "/api/v1/commands" }), expect: nobody() },
  "POST /api/v1/runs": {
    req: (c) => ({
      path: "/api/v1/runs",
      body: { space_id: c.ws.space_id, prompt: "p", repository: "r", idempotency_key: key() },
    }),
    expect: { ...write(201), other: 404 },
  },
  "GET /api/v1/workspaces/:ws/runners": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/runners` }),
    expect: read(403),
  },
  "GET /api/v1/runs/:run/runner-events": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/runner-events` }),
    expect: read(404),
  },
  "PUT /api/v1/runs/:run/objects": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/objects`, body: "bytes" }),
    expect: nobody(),
  },
  "GET /api/v1/runs/:run/objects/:sha": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/objects/${SHA}` }),
    expect: { ...all(404), revoked: 401 },
  },
  // The signature is the credential: without a valid one everybody is refused alike.
  "GET /objects/:ws/:run/:sha": {
    req: (c) => ({ path: `/objects/${c.ws.workspace_id}/${c.runId}/${SHA}?exp=1&sig=${SHA}` }),
    expect: all(403),
  },
  "GET /api/v1/spaces/:space/room": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/room` }),
    expect: read(404),
  },
  "GET /api/v1/spaces/:space/revisions": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/revisions` }),
    expect: read(404),
  },
  "GET /api/v1/spaces/:space/decisions": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/decisions` }),
    expect: read(404),
  },
};
