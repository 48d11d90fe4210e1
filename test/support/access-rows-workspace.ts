import { key } from "./api";
import { aTask, manage, read, write, type Row } from "./access-expect";

/** The role matrix's rows for a workspace's tasks, budgets, people, invites, harnesses and tokens. */
export const WORKSPACE_ROUTES: Record<string, Row> = {
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
};
