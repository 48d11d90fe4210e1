import { key } from "./api";
import { manage, read, write, type Row } from "./access-expect";

/** The role matrix's rows for review, share links, asks and their webhooks. */
export const REVIEW_ROUTES: Record<string, Row> = {
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
  "GET /api/v1/workspaces/:ws/review/rollups/asks": {
    req: (c) => ({ path: `/api/v1/workspaces/${c.ws.workspace_id}/review/rollups/asks?by=agent&format=csv` }),
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
