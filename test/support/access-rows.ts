import { key, message, type Workspace } from "./api";

/**
 * The rows of the role matrix (test/access-matrix.test.ts): for every HTTP route, people's
 * socket event and harness socket event, what each of owner / member / viewer / revoked /
 * other-workspace (and the owner's bearer token) gets back. A new route or event gets its row here.
 */
export const WHO = ["owner", "member", "viewer", "revoked", "other", "token"] as const;
export type Who = (typeof WHO)[number];
type Expect = Record<Who, number>;

export interface Ctx {
  ws: Workspace;
  runId: string;
  /** A member of ws made for this one request (a target to revoke). */
  freshPerson(): Promise<string>;
  freshHarness(): Promise<string>;
  freshInvite(): Promise<string>;
  /** A new token of a new harness: its public id. */
  freshToken(): Promise<string>;
  /** A share link of the run made by the member (its creator) for this one request. */
  freshShare(): Promise<string>;
  /** A task of its own scope made by the member for this one request. */
  freshTask(): Promise<string>;
  /** A permission the run's harness asks for this one request ([ASK1]): its id. */
  freshAsk(): Promise<string>;
  /** A webhook of the workspace made by the admin for this one request ([ASK7]): its id. */
  freshWebhook(): Promise<string>;
}
interface Row {
  req: (c: Ctx) => Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown };
  expect: Expect;
}

const all = (n: number): Expect => ({ owner: n, member: n, viewer: n, revoked: n, other: n, token: n });
const read = (otherStatus: number): Expect => ({
  owner: 200,
  member: 200,
  viewer: 200,
  revoked: 401,
  other: otherStatus,
  token: 200,
});
const write = (ok: number, otherStatus = 403): Expect => ({
  owner: ok,
  member: ok,
  viewer: 403,
  revoked: 401,
  other: otherStatus,
  token: ok,
});
const manage = (ok: number): Expect => ({ owner: ok, member: 403, viewer: 403, revoked: 401, other: 403, token: ok });
const nobody = (): Expect => ({ owner: 403, member: 403, viewer: 403, revoked: 401, other: 403, token: 403 });
const SHA = "a".repeat(64);
/** A task of its own scope (so starting it overlaps no other row's), made by the member. */
export const aTask = () => ({
  title: "t",
  prompt: "p",
  repository: "r",
  write_scope: [`${key()}/**`],
  idempotency_key: key(),
});

export const ROUTES: Record<string, Row> = {
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
  // Tasks ([TSK1]-[TSK4]): everyone of the workspace reads them; members and owners make, edit and start them.
  "GET /api/v1/spaces/:space/tasks": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/tasks` }),
    expect: read(404),
  },
  "POST /api/v1/spaces/:space/tasks": {
    req: (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/tasks`, body: aTask() }),
    expect: { ...write(201), other: 404 },
  },
  "PUT /api/v1/spaces/:space/tasks/:task": {
    req: async (c) => ({ path: `/api/v1/spaces/${c.ws.space_id}/tasks/${await c.freshTask()}`, body: aTask() }),
    expect: { ...write(201), other: 404 },
  },
  "POST /api/v1/spaces/:space/tasks/:task/start": {
    req: async (c) => ({
      path: `/api/v1/spaces/${c.ws.space_id}/tasks/${await c.freshTask()}/start`,
      body: { idempotency_key: key() },
    }),
    expect: { ...write(201), other: 404 },
  },
  // Budgets: everyone of the workspace sees spend; the owner sets limits (a huge one here, so no other row is refused).
  "GET /api/v1/workspaces/:ws/budgets": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/budgets` }),
    expect: read(403),
  },
  "PUT /api/v1/workspaces/:ws/budgets/:subject": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/budgets/*`, body: { tokens_per_month: 1e12 } }),
    expect: manage(200),
  },
  "GET /api/v1/workspaces/:ws/people": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/people` }),
    expect: read(403),
  },
  "POST /api/v1/workspaces/:ws/invites": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/invites`, body: { role: "viewer" } }),
    expect: manage(201),
  },
  "DELETE /api/v1/workspaces/:ws/people/:person": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/people/${await c.freshPerson()}` }),
    expect: manage(200),
  },
  "GET /api/v1/workspaces/:ws/harnesses": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses` }),
    expect: manage(200),
  },
  "DELETE /api/v1/workspaces/:ws/harnesses/:harness": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses/${await c.freshHarness()}` }),
    expect: manage(200),
  },
  "GET /api/v1/workspaces/:ws/access": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/access` }),
    expect: manage(200),
  },
  "PATCH /api/v1/workspaces/:ws/people/:person": {
    req: async (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/people/${await c.freshPerson()}`,
      body: { role: "viewer" },
    }),
    expect: manage(200),
  },
  "DELETE /api/v1/workspaces/:ws/invites/:invite": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/invites/${await c.freshInvite()}` }),
    expect: manage(200),
  },
  "POST /api/v1/workspaces/:ws/harnesses/:harness/tokens": {
    req: async (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/harnesses/${await c.freshHarness()}/tokens`,
      body: {},
    }),
    expect: manage(201),
  },
  "DELETE /api/v1/workspaces/:ws/tokens/:token": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/tokens/${await c.freshToken()}` }),
    expect: manage(200),
  },
  // Review: viewers review — they read runs, exports and keep their own views; an import writes.
  "GET /api/v1/workspaces/:ws/review/runs": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/runs?status=running` }),
    expect: read(403),
  },
  "GET /api/v1/workspaces/:ws/review/views": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/views` }),
    expect: read(403),
  },
  "POST /api/v1/workspaces/:ws/review/views": {
    req: (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/review/views`,
      body: { name: "mine", query: "status=failed" },
    }),
    expect: { ...read(403), owner: 201, member: 201, viewer: 201, token: 201 },
  },
  "DELETE /api/v1/workspaces/:ws/review/views/:view": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/views/view_none` }),
    expect: { ...read(403), owner: 404, member: 404, viewer: 404, token: 404 },
  },
  "POST /api/v1/runs/:run/annotations": {
    req: (c) => ({
      path: `/api/v1/runs/${c.runId}/annotations`,
      body: { verdict: "approved", idempotency_key: key() },
    }),
    expect: write(201, 404),
  },
  "GET /api/v1/runs/:run/events": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/events?type=run.status` }),
    expect: read(404),
  },
  "GET /api/v1/runs/:run/export": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/export?format=ndjson` }),
    expect: read(404),
  },
  "GET /api/v1/workspaces/:ws/review/export": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/export?status=running` }),
    expect: read(403),
  },
  "POST /api/v1/workspaces/:ws/import": {
    req: (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/import`,
      body: {
        chips_export: 1,
        exported_at: new Date().toISOString(),
        workspace_id: c.ws.workspace_id,
        directory: { persons: {}, harnesses: {}, rooms: {} },
        runs: [],
      },
    }),
    expect: write(200),
  },
  "GET /api/v1/workspaces/:ws/review/rollups": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/rollups?by=harness&format=csv` }),
    expect: read(403),
  },
  // Share links ([SHR1]): members and owners make them, everyone of the workspace sees them, the maker (here the member) or an owner revokes.
  "POST /api/v1/runs/:run/shares": {
    req: (c) => ({ path: `/api/v1/runs/${c.runId}/shares`, body: { expires_in_seconds: 3600 } }),
    expect: write(201, 404),
  },
  "GET /api/v1/workspaces/:ws/shares": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/shares` }),
    expect: read(403),
  },
  "DELETE /api/v1/workspaces/:ws/shares/:share": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/shares/${await c.freshShare()}` }),
    expect: { owner: 200, member: 200, viewer: 403, revoked: 401, other: 403, token: 200 },
  },
  // Asks ([ASK1]-[ASK4]): members and owners answer (another workspace's run is not found); everyone of the workspace reads.
  "POST /api/v1/runs/:run/asks/:ask/answer": {
    req: async (c) => ({
      path: `/api/v1/runs/${c.runId}/asks/${await c.freshAsk()}/answer`,
      body: { decision: "allow", idempotency_key: key() },
    }),
    expect: write(201, 404),
  },
  "GET /api/v1/runs/:run/asks": { req: (c) => ({ path: `/api/v1/runs/${c.runId}/asks` }), expect: read(404) },
  "GET /api/v1/runs/:run/asks/:ask": {
    req: async (c) => ({ path: `/api/v1/runs/${c.runId}/asks/${await c.freshAsk()}` }),
    expect: read(404),
  },
  "GET /api/v1/workspaces/:ws/asks": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/asks?state=open` }),
    expect: read(403),
  },
  // Webhooks for new asks ([ASK7]): the owner's alone (their URLs are secrets of sorts).
  "POST /api/v1/workspaces/:ws/webhooks": {
    req: (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/webhooks`,
      body: { url: "http://127.0.0.1:9/matrix", name: "matrix" },
    }),
    expect: manage(201),
  },
  "GET /api/v1/workspaces/:ws/webhooks": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/webhooks` }),
    expect: manage(200),
  },
  "DELETE /api/v1/workspaces/:ws/webhooks/:webhook": {
    req: async (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/webhooks/${await c.freshWebhook()}` }),
    expect: manage(200),
  },
  "GET /api/v1/workspaces/:ws/webhooks/:webhook/deliveries": {
    req: async (c) => ({
      path: `/api/v1/workspaces/${c.ws.workspace_id}/webhooks/${await c.freshWebhook()}/deliveries`,
    }),
    expect: manage(200),
  },
};

/** Socket events of the people's namespace: what each gets back. `refused`: the handshake is refused. */
export const SOCKET_EVENTS: Record<string, Record<Who, "ok" | "space_not_found" | "refused" | "no answer">> = {
  join: { owner: "ok", member: "ok", viewer: "ok", revoked: "refused", other: "space_not_found", token: "ok" },
  history: { owner: "ok", member: "ok", viewer: "ok", revoked: "refused", other: "space_not_found", token: "ok" },
  leave: {
    owner: "no answer",
    member: "no answer",
    viewer: "no answer",
    revoked: "refused",
    other: "no answer",
    token: "no answer",
  },
};

/**
 * Socket events of the harnesses' namespace: a runner of the workspace, a plain harness of it
 * (`not heard`: it has no such handler), a revoked runner, and another workspace's runner.
 * The run asked about is the workspace's, leased to nobody.
 */
export const HARNESS_WHO = ["runner", "harness", "revoked", "other"] as const;
export type HarnessWho = (typeof HARNESS_WHO)[number];
export const HARNESS_EVENTS: Record<string, Record<HarnessWho, string>> = {
  "runner.hello": { runner: "ok", harness: "not heard", revoked: "refused", other: "ok" },
  "lease.renew": { runner: "not_your_run", harness: "not heard", revoked: "refused", other: "not_your_run" },
};
