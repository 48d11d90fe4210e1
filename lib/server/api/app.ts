import { Hono, type Context } from "hono";
import { allJsonSchemas } from "@/lib/core/protocol/json-schema";
import {
  isId,
  canonicalId,
  problem,
  LoginLinkBody,
  NameBody,
  WorkspaceBody,
  type RunsAnswer,
} from "@/lib/core/protocol";
import { ingest } from "../ingest/post-events";
import { eventsAfter, listRuns, PAGE_DEFAULT, PAGE_MAX } from "@/lib/server/queries/runs";
import { roomsOf } from "@/lib/server/queries/workspace";
import { createHarness, createSpace, createWorkspaceBundle, defaultSetting, workspaceExists } from "../workspaces";
import type { ChipsServices } from "../services";
import { runScope, workspaceScope } from "./access";
import { fail, intParam, json, parseBody, problemResponse, readJson, type ApiEnv } from "./http";
import { runRoutes } from "./run-routes";
import { signIn } from "./sign-in";
import { reviewRoutes } from "./review-routes";
import { runnerRoutes } from "./runner-routes";
import { roomRoutes } from "./room-routes";
import { taskRoutes } from "./task-routes";
import { budgetRoutes } from "./budget-routes";
import { healthRoutes } from "./health";
import { peopleRoutes } from "./people-routes";
import { may, refusedBecause } from "../roles";
import { log } from "../log";
import { unavailable } from "../storage";

/** The HTTP API of docs/PROTOCOL.md §4 and docs/API.md, on our own router (Next route handlers cost ~3 ms each). */
export function createApi(svc: ChipsServices) {
  const app = new Hono<ApiEnv>();
  const schemas = allJsonSchemas();

  app.onError((err, c) => {
    if (svc.storage.failed(err, `${c.req.method} ${c.req.routePath}`)) return problemResponse(unavailable());
    log.error(
      { err, requestId: c.req.header("x-request-id"), route: `${c.req.method} ${c.req.routePath}` },
      "unhandled API error",
    );
    return problemResponse(problem("internal", "something went wrong on our side"));
  });
  app.notFound(() => fail("not_found", "no such endpoint"));

  healthRoutes(app, svc);

  app.get("/schemas/:file", (c) => {
    const s = schemas[c.req.param("file")];
    return s ? json(s) : fail("not_found", "no such schema");
  });
  app.get("/schemas", () => json({ schemas: Object.keys(schemas).map((f) => `/schemas/${f}`) }));

  // Everything below needs a credential (lib/server/api/sign-in.ts).
  app.use("/api/v1/*", async (c, next) => {
    const cred = await signIn(svc, c);
    if (cred instanceof Response) return cred;
    c.set("cred", cred);
    return storageGate(c, next);
  });

  /**
   * While the database is unreachable a write is refused at once (503 + Retry-After) rather
   * than queued on a dead connection; a read goes ahead (some are served from memory) and
   * says so with `Chips-Storage: unavailable`.
   */
  async function storageGate(c: Context<ApiEnv>, next: () => Promise<void>) {
    if (svc.storage.available) return next();
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return problemResponse(unavailable());
    await next();
    c.res.headers.set("chips-storage", "unavailable");
  }

  // Who this credential is (a person with their role), and its workspace's rooms: what a harness or the demo needs to start.
  app.get("/api/v1/me", async (c) => {
    const cred = c.get("cred");
    if (cred.kind === "admin") return json({ kind: cred.kind, id: cred.subjectId });
    return json({
      kind: cred.kind,
      id: cred.subjectId,
      workspace_id: cred.workspaceId,
      // The role the server judges by (lib/server/roles.ts): a person's, never a harness's or runner's.
      ...(cred.kind === "person" ? { role: cred.role ?? "viewer" } : {}),
      spaces: await roomsOf(svc.db, cred.workspaceId),
    });
  });

  app.post("/api/v1/events", async (c) => {
    if (!may(c.get("cred"), "write")) return fail("forbidden", refusedBecause("write"));
    const body = await readJson(c);
    if (!body.ok) return body.response;
    // Returned, not awaited: this frame would keep the request's parsed JSON (`body`)
    // reachable until the commit answers, and every scavenge meanwhile would copy it.
    return ingest(svc, c.get("cred"), body.value).then((r) =>
      r.ok
        ? new Response(r.body, { status: r.status, headers: { "content-type": "application/json" } })
        : problemResponse(r.problem),
    );
  });

  app.get("/api/v1/workspaces/:ws/events", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const after = intParam(c.req.query("after"), "after", 0);
    if (after instanceof Response) return after;
    const limit = intParam(c.req.query("limit"), "limit", PAGE_DEFAULT, PAGE_MAX);
    if (limit instanceof Response) return limit;
    const space = c.req.query("space");
    if (space !== undefined && !isId("space", space))
      return fail("validation_failed", "space must be a space id", "/query/space");
    const page = await eventsAfter(
      svc.database.db,
      ws,
      after,
      Math.max(1, limit),
      space ? canonicalId(space) : undefined,
    );
    return new Response(`{"events":[${page.bodies.join(",")}],"next_after":${page.nextAfter}}`, {
      headers: { "content-type": "application/json" },
    });
  });

  app.get("/api/v1/workspaces/:ws/runs", async (c) => {
    const ws = workspaceScope(c);
    if (ws instanceof Response) return ws;
    const space = c.req.query("space");
    const rows = await listRuns(svc.database.db, ws, space && isId("space", space) ? canonicalId(space) : undefined);
    return json({ runs: rows } satisfies RunsAnswer);
  });

  app.get("/api/v1/runs/:run", async (c) => {
    const run = await runScope(svc, c);
    return run instanceof Response ? run : json(run);
  });

  // Admin: workspaces, rooms and harnesses.
  app.post("/api/v1/admin/workspaces", async (c) => {
    if (c.get("cred").kind !== "admin") return fail("forbidden", "this needs the admin token");
    const input = await parseBody(c, WorkspaceBody, "bad workspace request", 64 * 1024, {});
    if (input instanceof Response) return input;
    const made = await createWorkspaceBundle(svc.database.db, input.data);
    const room_url = await svc.loginUrl(made.workspace_id, made.space_id, made.person_id);
    return json({ ...made, room_url }, 201);
  });

  // A fresh one-time login link (`chips login`): for a workspace's owner, to a room or the workspace.
  app.post("/api/v1/admin/login-links", async (c) => {
    if (c.get("cred").kind !== "admin") return fail("forbidden", "this needs the admin token");
    const input = await parseBody(c, LoginLinkBody, "bad login-link request", 64 * 1024, {});
    if (input instanceof Response) return input;
    const ws = input.data.workspace_id ?? (await defaultSetting(svc.db, "default_workspace_id"));
    if (!ws || !(await workspaceExists(svc.db, ws)))
      return fail("workspace_not_found", "no such workspace", "/workspace_id");
    const space =
      input.data.space_id ?? (input.data.workspace_id ? null : await defaultSetting(svc.db, "default_space_id"));
    return json({ workspace_id: ws, url: await svc.loginUrl(ws, space) }, 201);
  });

  app.post("/api/v1/workspaces/:ws/spaces", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "write");
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, NameBody, "bad space request", 64 * 1024);
    if (input instanceof Response) return input;
    const space = await createSpace(svc.database.db, ws, input.data.name);
    return json({ ...space, room_url: svc.roomUrl(ws, space.id) }, 201);
  });

  app.post("/api/v1/workspaces/:ws/harnesses", async (c) => {
    const ws = workspaceScope(c, ["admin", "person"], "manage");
    if (ws instanceof Response) return ws;
    const input = await parseBody(c, NameBody, "bad harness request", 64 * 1024);
    if (input instanceof Response) return input;
    const h = await createHarness(svc.database.db, ws, input.data.name, input.data.kind);
    return json({ harness_id: h.id, token: h.token }, 201);
  });

  runRoutes(app, svc);
  runnerRoutes(app, svc);
  roomRoutes(app, svc);
  taskRoutes(app, svc);
  budgetRoutes(app, svc);
  peopleRoutes(app, svc);
  reviewRoutes(app, svc);

  return app;
}
