import type { Context, Hono } from "hono";
import { canonicalId, isId, StartTaskBody, TaskBody, type TasksAnswer } from "@/lib/core/protocol";
import type { ChipsServices } from "../services";
import { listTasks } from "@/lib/server/queries/tasks";
import { saveTask } from "../tasks/save";
import { startTask } from "../tasks/start";
import { personWriter, spaceScope } from "./access";
import { fail, json, parseBody, problemResponse, type ApiEnv } from "./http";

const STARTED = { "content-type": "application/json" };
/** Tasks are made and started by people who may write (members, owners). */
const FROM_PEOPLE = "tasks come from people";

/**
 * A room's tasks ([TSK1]–[TSK4], docs/ROOM-STATE.md): read by any credential of the workspace;
 * made, edited and started by members and owners. Precedence: 403 → 422 → a replay → 404 → 409.
 */
export function taskRoutes(app: Hono<ApiEnv>, svc: ChipsServices) {
  app.get("/api/v1/spaces/:space/tasks", async (c) => {
    const space = await spaceScope(svc, c);
    if (space instanceof Response) return space;
    return json({ tasks: await listTasks(svc.db, space.workspaceId, space.id) } satisfies TasksAnswer);
  });

  app.post("/api/v1/spaces/:space/tasks", (c) => save(c, null));

  app.put("/api/v1/spaces/:space/tasks/:task", (c) => {
    const id = c.req.param("task");
    return isId("task", id) ? save(c, canonicalId(id)) : fail("task_not_found", "no such task in this room");
  });

  app.post("/api/v1/spaces/:space/tasks/:task/start", async (c) => {
    const cred = personWriter(c, FROM_PEOPLE);
    if (cred instanceof Response) return cred;
    const input = await parseBody(c, StartTaskBody, "bad task start", 64 * 1024);
    if (input instanceof Response) return input;
    const space = await spaceScope(svc, c);
    if (space instanceof Response) return space;
    const id = c.req.param("task");
    if (!isId("task", id)) return fail("task_not_found", "no such task in this room");
    const r = await startTask(svc, cred, space, canonicalId(id), input.data);
    if (!r.ok) return problemResponse(r.problem);
    return new Response(`{"run_id":${JSON.stringify(r.runId)},"events":[${r.bodies.join(",")}]}`, {
      status: r.status,
      headers: STARTED,
    });
  });

  async function save(c: Context<ApiEnv>, taskId: string | null) {
    const cred = personWriter(c, FROM_PEOPLE);
    if (cred instanceof Response) return cred;
    const input = await parseBody(c, TaskBody, "bad task", 256 * 1024);
    if (input instanceof Response) return input;
    const space = await spaceScope(svc, c);
    if (space instanceof Response) return space;
    const r = await saveTask(svc, cred, space, taskId, input.data);
    return r.ok ? new Response(r.body, { status: r.status, headers: STARTED }) : problemResponse(r.problem);
  }
}
