import { canonicalId, isId, problem, problemAt } from "@/lib/core/protocol";
import { CORE_ROUTES } from "@/lib/core/routes";
import { allJsonSchemas } from "@/lib/core/protocol/json-schema";
import { pendingMigrations } from "@/db/migrate";
import { ingest } from "../ingest/post-events";
import { eventsAfter, listRuns } from "@/lib/server/queries/runs";
import { roomsOf } from "@/lib/server/queries/workspace";
import { createHarness, createSpace, createWorkspaceBundle, defaultSetting, workspaceExists } from "../workspaces";
import type { ChipsServices } from "../services";
import type { Handlers, Reply } from "./adapter";
import { openApiDocument } from "./openapi";

type Core = typeof CORE_ROUTES;

/** The handlers of lib/core/protocol/routes/core.ts: health, schemas, who, the log, runs, set-up. */
export function coreHandlers(
  svc: Pick<
    ChipsServices,
    "database" | "db" | "limiter" | "loginUrl" | "presence" | "roomUrl" | "stopping" | "storage" | "writer"
  >,
): Handlers<Core> {
  const schemas = allJsonSchemas();
  let openapi: string | null = null;

  /**
   * Liveness and readiness (docs/OPERATIONS.md, house rule 9): 200 only when the database
   * answers and has every migration of this build, else 503 with what is missing — a load
   * balancer takes the node out meanwhile and back when it is ready again. A server shutting down
   * is not ready from its signal on ([OPS4]), whatever its database says.
   */
  const ready = async (): Promise<Reply<Core["health"]>> => {
    if (svc.stopping)
      return {
        status: 503,
        body: { ok: false, db: svc.database.kind, live: true, ready: false, state: "shutting_down" },
      };
    const database = await svc.storage.check();
    let pending: string[] | null = null;
    if (database) pending = await pendingMigrations(svc.db).catch(() => null);
    const migrations = pending === null ? "unknown" : pending.length ? "pending" : "current";
    const ok = database && migrations === "current";
    const body = {
      ok,
      db: svc.database.kind,
      live: true as const,
      ready: ok,
      state: ok ? ("ready" as const) : ("unavailable" as const),
      storage: database ? ("reachable" as const) : ("unreachable" as const),
      migrations,
      ...(pending?.length ? { pending } : {}),
    } as const;
    return ok ? { status: 200, body } : { status: 503, body };
  };

  return {
    live: () => ({ status: 200, body: { ok: true, live: true } }),
    health: ready,
    ready,
    // Made on first ask from the table (lib/core/protocol/routes), then kept: it never changes while the process runs.
    openapi: () => ({ status: 200, raw: (openapi ??= JSON.stringify(openApiDocument())) }),
    schemas: () => ({ status: 200, body: { schemas: Object.keys(schemas).map((f) => `/schemas/${f}`) } }),
    schema: ({ params }) => {
      const s = schemas[params.file];
      return s ? { status: 200, body: s } : problem("not_found", "no such schema");
    },

    // Who this credential is (a person with their role), and its workspace's rooms: what a harness or the demo needs to start.
    me: async ({ cred }) => {
      if (cred.kind === "admin") return { status: 200, body: { kind: cred.kind, id: cred.subjectId } };
      if (cred.kind === "system") return problem("forbidden", "the server's own credential has no identity here");
      return {
        status: 200,
        body: {
          kind: cred.kind,
          id: cred.subjectId,
          workspace_id: cred.workspaceId,
          // The role the server judges by (lib/server/roles.ts): a person's, never a harness's or runner's.
          ...(cred.kind === "person" ? { role: cred.role ?? "viewer" } : {}),
          spaces: await roomsOf(svc.db, cred.workspaceId),
        },
      };
    },

    // The ingest answers the stored bodies already serialized ([HTTP1]).
    postEvents: ({ cred, body }) =>
      ingest(svc, cred, body).then((r) => (r.ok ? { status: r.status as 200 | 201, raw: r.body } : r.problem)),

    workspaceEvents: async ({ ws, query }) => {
      const page = await eventsAfter(
        svc.database.db,
        ws,
        query.after,
        Math.max(1, query.limit),
        query.space ? canonicalId(query.space) : undefined,
      );
      // The stored bodies as they are: the same bytes every other read serves.
      return { status: 200, raw: `{"events":[${page.bodies.join(",")}],"next_after":${page.nextAfter}}` };
    },

    workspaceRuns: async ({ ws, query }) => {
      const space = query.space && isId("space", query.space) ? canonicalId(query.space) : undefined;
      return { status: 200, body: { runs: await listRuns(svc.database.db, ws, space) } };
    },

    run: ({ run }) => ({ status: 200, body: run }),

    createWorkspace: async ({ body }) => {
      const made = await createWorkspaceBundle(svc.database.db, body);
      const room_url = await svc.loginUrl(made.workspace_id, made.space_id, made.person_id);
      return { status: 201, body: { ...made, room_url } };
    },

    // A fresh one-time login link (`chips login`): for a workspace's owner, to a room or the workspace.
    loginLink: async ({ body }) => {
      const ws = body.workspace_id ?? (await defaultSetting(svc.db, "default_workspace_id"));
      if (!ws || !(await workspaceExists(svc.db, ws)))
        return problemAt("workspace_not_found", "no such workspace", "/workspace_id");
      const space = body.space_id ?? (body.workspace_id ? null : await defaultSetting(svc.db, "default_space_id"));
      return { status: 201, body: { workspace_id: ws, url: await svc.loginUrl(ws, space) } };
    },

    createSpace: async ({ ws, body }) => {
      const space = await createSpace(svc.database.db, ws, body.name);
      return { status: 201, body: { ...space, room_url: svc.roomUrl(ws, space.id) } };
    },

    createHarness: async ({ ws, body }) => {
      const h = await createHarness(svc.database.db, ws, body.name, body.kind);
      return { status: 201, body: { harness_id: h.id, token: h.token } };
    },
  };
}
