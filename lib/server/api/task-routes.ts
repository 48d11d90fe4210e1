import type { Context, Hono } from "hono";
import { canonicalId, isId, problem, StartTaskBody, TaskBody, zodErrors, type TasksAnswer } from "@/lib/protocol";
import type { Credential } from "../credentials";
import { may, refusedBecause } from "../roles";
import type { ChipsServices } from "../services";
import { listTasks } from "@/lib/queries/tasks";
import { saveTask } from "../tasks/save";
import { startTask } from "../tasks/start";
import { fail, json, problemResponse, readJson } from "./http";
import { spaceOf, type Env } from "./room-routes";

const STARTED = { "content-type": "application/json" };

/**
 * A room's tasks ([TSK1]–[TSK4], docs/ROOM-STATE.md): read by any credential of the workspace;
 * made, edited and started by members and owners. Precedence: 403 → 422 → a replay → 404 → 409.
 */
export function taskRoutes(app: Hono<Env>, svc: ChipsServices) {
  app.get("/api/v1/spaces/:space/tasks", async (c) => {
    const space = await spaceOf(svc, c);
    if (space instanceof Response) return space;
    return json({ tasks: await listTasks(svc.db, space.workspaceId, space.id) } satisfies TasksAnswer);
  });

  app.post("/api/v1/spaces/:space/tasks", (c) => save(c, null));

  app.put("/api/v1/spaces/:space/tasks/:task", (c) => {
    const id = c.req.param("task");
    return isId("task", id) ? save(c, canonicalId(id)) : fail("task_not_found", "no such task in this room");
  });

  app.post("/api/v1/spaces/:space/tasks/:task/start", async (c) => {
    const refused = writer(c.get("cred"));
    if (refused) return refused;
    const body = await readJson(c, 64 * 1024);
    if (!body.ok) return body.response;
    const input = StartTaskBody.safeParse(body.value);
    if (!input.success)
      return problemResponse(problem("validation_failed", "bad task start", zodErrors("", input.error)));
    const space = await spaceOf(svc, c);
    if (space instanceof Response) return space;
    const id = c.req.param("task");
    if (!isId("task", id)) return fail("task_not_found", "no such task in this room");
    const r = await startTask(svc, c.get("cred"), space, canonicalId(id), input.data);
    if (!r.ok) return problemResponse(r.problem);
    return new Response(`{"run_id":${JSON.stringify(r.runId)},"events":[${r.bodies.join(",")}]}`, {
      status: r.status,
      headers: STARTED,
    });
  });

  async function save(c: Context<Env>, taskId: string | null) {
    const refused = writer(c.get("cred"));
    if (refused) return refused;
    const body = await readJson(c, 256 * 1024);
    if (!body.ok) return body.response;
    const input = TaskBody.safeParse(body.value);
    if (!input.success) return problemResponse(problem("validation_failed", "bad task", zodErrors("", input.error)));
    const space = await spaceOf(svc, c);
    if (space instanceof Response) return space;
    const r = await saveTask(svc, c.get("cred"), space, taskId, input.data);
    return r.ok ? new Response(r.body, { status: r.status, headers: STARTED }) : problemResponse(r.problem);
  }
}

/** Tasks are made and started by people who may write (members, owners). */
function writer(cred: Credential): Response | null {
  if (cred.kind !== "person") return fail("forbidden", "tasks come from people: use a session or a person token");
  return may(cred, "write") ? null : fail("forbidden", refusedBecause("write"));
}
